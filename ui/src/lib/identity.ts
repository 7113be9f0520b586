// The identity wizard's steps, as plain data: onboard → personal information → the questions,
// one at a time → the outcome. The screen renders a step; these functions make the next one.
import type { Answer } from "./bindings/Answer";
import type { AuthenticatePersonRequest } from "./bindings/AuthenticatePersonRequest";
import type { AuthenticatePersonResponse } from "./bindings/AuthenticatePersonResponse";
import type { Person } from "./bindings/Person";
import type { Question } from "./bindings/Question";
import type { Signals } from "./bindings/Signals";
import type { VerifyPersonResponse } from "./bindings/VerifyPersonResponse";

export type Outcome =
  | { kind: "verified"; signals: Signals | null }
  | { kind: "failed"; attemptsRemaining: number }
  | { kind: "locked"; lockedUntil: string | null };

export type Step =
  | { kind: "onboard" }
  | { kind: "information"; person: Person }
  | {
      kind: "questions";
      person: Person;
      questions: Question[];
      expiresAt: string;
      /** The question shown; answers before it are final. */
      index: number;
      answers: Answer[];
    }
  /** The questions ran out before the answers were sent: new ones are needed. */
  | { kind: "expired"; person: Person }
  | { kind: "outcome"; person: Person; outcome: Outcome };

/** Where a listed person resumes. Questions issued earlier cannot be shown again (the app
 * never keeps them), so an open authentication starts over with new ones. */
export function stepFor(person: Person, now: number): Step {
  switch (person.status) {
    case "verified":
      return {
        kind: "outcome",
        person,
        outcome: { kind: "verified", signals: person.signals ?? null },
      };
    case "locked": {
      const until = person.lockedUntil ? Date.parse(person.lockedUntil) : Number.NaN;
      if (Number.isNaN(until) || until > now) {
        return {
          kind: "outcome",
          person,
          outcome: { kind: "locked", lockedUntil: person.lockedUntil ?? null },
        };
      }
      return { kind: "information", person };
    }
    default:
      return { kind: "information", person };
  }
}

export function startQuestions(person: Person, response: AuthenticatePersonResponse): Step {
  return {
    kind: "questions",
    person,
    questions: response.questions,
    expiresAt: response.expiresAt,
    index: 0,
    answers: [],
  };
}

/** Records the answer to the question shown and moves to the next; there is no way back. */
export function answerCurrent(step: Step, choiceId: number): Step {
  if (step.kind !== "questions") return step;
  const question = step.questions[step.index];
  if (!question || !question.choices.some((choice) => choice.choiceId === choiceId)) return step;
  const answers = [...step.answers, { questionId: question.questionId, choiceId }];
  return { ...step, answers, index: Math.min(step.index + 1, step.questions.length) };
}

/** "Question 2 of 4" while answering; complete once every question has its answer. */
export function progress(step: Step): {
  current: number;
  total: number;
  label: string;
  complete: boolean;
} {
  if (step.kind !== "questions") return { current: 0, total: 0, label: "", complete: false };
  const total = step.questions.length;
  const current = Math.min(step.index + 1, total);
  return {
    current,
    total,
    label: `${current} of ${total}`,
    complete: step.answers.length === total,
  };
}

export function isLastQuestion(step: Step): boolean {
  return step.kind === "questions" && step.index === step.questions.length - 1;
}

export function outcomeOf(response: VerifyPersonResponse): Outcome {
  if (response.verified) return { kind: "verified", signals: response.signals ?? null };
  if (response.status === "locked")
    return { kind: "locked", lockedUntil: response.lockedUntil ?? null };
  return { kind: "failed", attemptsRemaining: response.attemptsRemaining };
}

/** The person as the outcome leaves them (so the list shows the new status without a reload). */
export function afterVerify(person: Person, response: VerifyPersonResponse): Person {
  return {
    ...person,
    status: response.status,
    verified: response.verified,
    attemptsRemaining: response.attemptsRemaining,
    signals: response.signals ?? person.signals,
    lockedUntil: response.lockedUntil ?? person.lockedUntil,
  };
}

export interface PersonalForm {
  dateOfBirth: string;
  street: string;
  streetNo: string;
  city: string;
  zip: string;
  countryCode: string;
  phoneNumber: string;
  ssnLast4: string;
}

export function emptyPersonalForm(): PersonalForm {
  return {
    dateOfBirth: "",
    street: "",
    streetNo: "",
    city: "",
    zip: "",
    countryCode: "USA",
    phoneNumber: "",
    ssnLast4: "",
  };
}

/** The request as the service takes it: trimmed, the country in capitals, optional fields
 * left out when empty. */
export function personalRequest(personId: number, form: PersonalForm): AuthenticatePersonRequest {
  const request: AuthenticatePersonRequest = {
    personId,
    dateOfBirth: form.dateOfBirth.trim(),
    address: {
      street: form.street.trim(),
      streetNo: form.streetNo.trim(),
      city: form.city.trim(),
      zip: form.zip.trim(),
      countryCode: form.countryCode.trim().toUpperCase(),
    },
  };
  if (form.phoneNumber.trim()) request.phoneNumber = form.phoneNumber.trim();
  if (form.ssnLast4.trim() && asksForSsn(form.countryCode)) request.ssnLast4 = form.ssnLast4.trim();
  return request;
}

/** A US Social Security number is asked for (and sent) only with an address in the US. */
export function asksForSsn(countryCode: string): boolean {
  return countryCode.trim().toUpperCase() === "USA";
}

/** The change of spending, signed: "+12.5%", "−4%", "+0%". */
export function deltaPercent(value: number): string {
  const percent = Math.round(Math.abs(value) * 1000) / 10;
  return `${value < 0 ? "−" : "+"}${percent}%`;
}

/** Shares as whole percents for the chart's labels: "34%". */
export function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}
