import { describe, expect, it } from "vitest";
import type { Person } from "./bindings/Person";
import { samplePerson } from "./fixtures.test-helpers";
import * as identity from "./identity";
import type { Step } from "./identity";

const person: Person = samplePerson();

const questions = [1, 2, 3, 4].map((questionId) => ({
  questionId,
  text: `Question ${questionId}?`,
  choices: [1, 2, 3, 4, 5].map((n) => ({
    choiceId: questionId * 10 + n,
    text: n === 5 ? "None of the above" : `Choice ${n}`,
  })),
}));

const asked = identity.startQuestions(person, {
  personId: 7,
  expiresAt: "2026-03-07T09:10:00Z",
  questions,
});

describe("the identity wizard", () => {
  const now = Date.parse("2026-03-07T12:00:00Z");

  it("resumes a listed person where they stand", () => {
    expect(identity.stepFor(person, now).kind).toBe("information");
    expect(identity.stepFor({ ...person, status: "failed", attemptsRemaining: 2 }, now).kind).toBe(
      "information",
    );
    // Questions issued before are never shown again: new ones are asked for.
    expect(identity.stepFor({ ...person, status: "authenticating" }, now).kind).toBe("information");
    expect(identity.stepFor({ ...person, status: "verified", verified: true }, now)).toMatchObject({
      kind: "outcome",
      outcome: { kind: "verified", signals: null },
    });
    expect(
      identity.stepFor({ ...person, status: "locked", lockedUntil: "2026-03-08T12:00:00Z" }, now),
    ).toMatchObject({
      kind: "outcome",
      outcome: { kind: "locked", lockedUntil: "2026-03-08T12:00:00Z" },
    });
    // A lock that has ended: the person starts again.
    expect(
      identity.stepFor({ ...person, status: "locked", lockedUntil: "2026-03-07T11:00:00Z" }, now)
        .kind,
    ).toBe("information");
  });

  it("asks one question at a time, with identity.progress, and keeps each answer once given", () => {
    expect(identity.progress(asked)).toEqual({
      current: 1,
      total: 4,
      label: "1 of 4",
      complete: false,
    });
    let step: Step = identity.answerCurrent(asked, 12);
    expect(identity.progress(step).label).toBe("2 of 4");
    // A choice of another question does not count.
    expect(identity.answerCurrent(step, 12)).toBe(step);
    step = identity.answerCurrent(step, 25);
    step = identity.answerCurrent(step, 31);
    expect(identity.isLastQuestion(step)).toBe(true);
    expect(identity.progress(step)).toMatchObject({ label: "4 of 4", complete: false });
    step = identity.answerCurrent(step, 44);
    expect(identity.progress(step).complete).toBe(true);
    expect(step.kind === "questions" && step.answers).toEqual([
      { questionId: 1, choiceId: 12 },
      { questionId: 2, choiceId: 25 },
      { questionId: 3, choiceId: 31 },
      { questionId: 4, choiceId: 44 },
    ]);
    // Nothing after the last question.
    expect(identity.answerCurrent(step, 41)).toBe(step);
  });

  it("reads the outcome: verified with signals, failed with attempts left, or locked", () => {
    const signals = {
      income: { annualAmount: 64500, currency: "USD", confidence: 0.8 },
      spendingCategories: [{ category: "Groceries", monthlyAverage: 410.5, share: 1 }],
      spendingDelta: { value: 0.12, direction: "increasing", periodDays: 90 },
    };
    expect(
      identity.outcomeOf({
        personId: 7,
        verified: true,
        status: "verified",
        attemptsRemaining: 3,
        signals,
      }),
    ).toEqual({
      kind: "verified",
      signals,
    });
    expect(
      identity.outcomeOf({ personId: 7, verified: false, status: "failed", attemptsRemaining: 2 }),
    ).toEqual({
      kind: "failed",
      attemptsRemaining: 2,
    });
    const locked = {
      personId: 7,
      verified: false,
      status: "locked" as const,
      attemptsRemaining: 0,
      lockedUntil: "2026-03-08T12:00:00Z",
    };
    expect(identity.outcomeOf(locked)).toEqual({
      kind: "locked",
      lockedUntil: "2026-03-08T12:00:00Z",
    });
    expect(identity.afterVerify(person, locked)).toMatchObject({
      status: "locked",
      attemptsRemaining: 0,
      lockedUntil: "2026-03-08T12:00:00Z",
    });
  });

  it("sends the personal information as the service takes it", () => {
    const form = {
      ...identity.emptyPersonalForm(),
      dateOfBirth: " 1987-04-23 ",
      street: "Valencia St",
      streetNo: "1022",
      city: "San Francisco",
      zip: "94110",
      countryCode: "usa",
    };
    expect(identity.personalRequest(7, form)).toEqual({
      personId: 7,
      dateOfBirth: "1987-04-23",
      address: {
        street: "Valencia St",
        streetNo: "1022",
        city: "San Francisco",
        zip: "94110",
        countryCode: "USA",
      },
    });
    expect(
      identity.personalRequest(7, { ...form, phoneNumber: "+1 415 555 0100", ssnLast4: "1234" }),
    ).toMatchObject({
      phoneNumber: "+1 415 555 0100",
      ssnLast4: "1234",
    });
  });

  it("signs the spending delta as a percentage", () => {
    expect(identity.deltaPercent(0.125)).toBe("+12.5%");
    expect(identity.deltaPercent(-0.04)).toBe("−4%");
    expect(identity.deltaPercent(0)).toBe("+0%");
  });
});

describe("the SSN", () => {
  it("is sent only with an address in the US", async () => {
    const identity = await import("./identity");
    const form = { ...identity.emptyPersonalForm(), ssnLast4: "1234" };
    expect(identity.personalRequest(7, { ...form, countryCode: "USA" }).ssnLast4).toBe("1234");
    expect(identity.personalRequest(7, { ...form, countryCode: "FRA" }).ssnLast4).toBeUndefined();
    expect(identity.asksForSsn("usa")).toBe(true);
  });
});
