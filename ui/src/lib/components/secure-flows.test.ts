import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Signals as SignalsData } from "../bindings/Signals";
import { startQuestions, type Step } from "../identity";
import IdentityQuestions from "../../screens/IdentityQuestions.svelte";
import Countdown from "./Countdown.svelte";
import SecureWait from "./SecureWait.svelte";
import Signals from "./Signals.svelte";

afterEach(() => {
  clearMocks();
  vi.useRealTimers();
});

const page = {
  id: 4,
  url: "http://127.0.0.1:4100/secure/card?session=abc",
  expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(),
  opened: true,
  openProblem: null,
  qrCode: [],
};

describe("SecureWait", () => {
  it("shows the link with a copy button and a countdown, and can be cancelled", async () => {
    const onCancel = vi.fn();
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    render(SecureWait, {
      title: "Waiting for the card",
      instruction: "Type the card.",
      page,
      status: "waiting",
      onCancel,
    });
    expect(screen.getByTestId("secure-wait")).toHaveAttribute("data-status", "waiting");
    expect(screen.getByTestId("secure-wait-url")).toHaveTextContent(page.url);
    expect(screen.getByRole("timer")).toHaveAccessibleName(
      /Link expires in (14 minutes 59|15 minutes) /,
    );
    await fireEvent.click(screen.getByTestId("secure-wait-copy"));
    await waitFor(() => expect(screen.getByTestId("secure-wait-copy")).toHaveTextContent("Copied"));
    expect(writeText).toHaveBeenCalledWith(page.url);
    await fireEvent.click(screen.getByTestId("secure-wait-cancel"));
    expect(onCancel).toHaveBeenCalledOnce();
  });

  it("says when the browser did not open, and opens the link again through the app", async () => {
    const calls: [string, unknown][] = [];
    mockIPC((command, args) => {
      calls.push([command, args]);
      return null;
    });
    render(SecureWait, {
      title: "Waiting for the card",
      instruction: "Type the card.",
      page: { ...page, opened: false, openProblem: "no browser" },
      status: "waiting",
      onCancel: () => undefined,
    });
    expect(screen.getByTestId("secure-wait")).toHaveTextContent(
      "The browser did not open (no browser)",
    );
    await fireEvent.click(screen.getByTestId("secure-wait-open"));
    await waitFor(() => expect(calls).toEqual([["open_secure_page", { url: page.url }]]));
  });

  it("shows the outcome instead of the link once the page is done", () => {
    render(SecureWait, {
      title: "Card enrolled",
      instruction: "",
      page,
      status: "completed",
      onCancel: () => undefined,
    });
    expect(screen.queryByTestId("secure-wait-url")).toBeNull();
    expect(screen.getByTestId("secure-wait-close")).toBeInTheDocument();
  });
});

describe("Countdown", () => {
  it("ticks down and says once that time is up", async () => {
    vi.useFakeTimers();
    const onExpired = vi.fn();
    render(Countdown, {
      expiresAt: new Date(Date.now() + 3_000).toISOString(),
      label: "Questions expire in",
      totalSeconds: 600,
      onExpired,
    });
    expect(screen.getByRole("timer")).toHaveTextContent("0:03");
    expect(screen.getByRole("timer")).toHaveClass("soon");
    await vi.advanceTimersByTimeAsync(1_000);
    expect(screen.getByRole("timer")).toHaveTextContent("0:02");
    await vi.advanceTimersByTimeAsync(3_000);
    expect(screen.getByRole("timer")).toHaveTextContent("expired");
    expect(onExpired).toHaveBeenCalledOnce();
    await vi.advanceTimersByTimeAsync(3_000);
    expect(onExpired).toHaveBeenCalledOnce();
  });
});

describe("IdentityQuestions", () => {
  const questions = [1, 2].map((questionId) => ({
    questionId,
    text: `Which street, ${questionId}?`,
    choices: [1, 2, 3, 4, 5].map((n) => ({
      choiceId: questionId * 10 + n,
      text: n === 5 ? "None of the above" : `Street ${questionId}.${n}`,
    })),
  }));
  const person = {
    personId: 7,
    firstName: "Ada",
    lastName: "Lovelace",
    email: "ada@example.com",
    status: "authenticating" as const,
    verified: false,
    attemptsRemaining: 3,
    createdAt: "2026-03-07T09:00:00Z",
    clientUserId: null,
    metadata: {},
  };
  const asked = startQuestions(person, {
    personId: 7,
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
    questions,
  }) as Extract<Step, { kind: "questions" }>;

  it("shows one question with progress, and goes on only with a choice", async () => {
    const onAnswer = vi.fn();
    render(IdentityQuestions, {
      step: asked,
      totalSeconds: 600,
      busy: false,
      error: null,
      onAnswer,
      onExpired: () => undefined,
    });
    expect(screen.getByTestId("question-progress")).toHaveTextContent("Question 1 of 2");
    expect(screen.getByTestId("question-text")).toHaveTextContent("Which street, 1?");
    expect(screen.getAllByRole("radio")).toHaveLength(5);
    expect(screen.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "0");
    const next = screen.getByTestId("question-next");
    expect(next).toBeDisabled();
    expect(next).toHaveTextContent("Next question");
    await fireEvent.click(screen.getByLabelText("Street 1.3"));
    expect(next).toBeEnabled();
    await fireEvent.click(next);
    expect(onAnswer).toHaveBeenCalledWith(13);
  });

  it("offers to submit on the last question", () => {
    const last = { ...asked, index: 1, answers: [{ questionId: 1, choiceId: 13 }] };
    render(IdentityQuestions, {
      step: last,
      totalSeconds: 600,
      busy: false,
      error: null,
      onAnswer: () => undefined,
      onExpired: () => undefined,
    });
    expect(screen.getByTestId("question-progress")).toHaveTextContent("Question 2 of 2");
    expect(screen.getByTestId("question-next")).toHaveTextContent("Submit answers");
    expect(screen.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "1");
  });
});

describe("Signals", () => {
  it("draws income, the spending categories with their shares, and the spending change", () => {
    const signals: SignalsData = {
      income: { annualAmount: 76000, currency: "USD", confidence: 0.92 },
      spendingCategories: [
        { category: "Dining", monthlyAverage: 1689.09, share: 0.6 },
        { category: "Travel", monthlyAverage: 1126.06, share: 0.4 },
      ],
      spendingDelta: { value: 0.26, direction: "increasing", periodDays: 90 },
    };
    render(Signals, { signals });
    expect(screen.getByTestId("signal-income")).toHaveTextContent("76,000.00 USD");
    expect(screen.getByRole("meter")).toHaveAttribute("aria-valuenow", "92");
    const items = screen.getAllByTestId("spending-categories-item");
    expect(items.map((item) => item.textContent?.replace(/\s+/g, " ").trim())).toEqual([
      "Dining 60% 1,689.09 USD a month",
      "Travel 40% 1,126.06 USD a month",
    ]);
    expect(screen.getByTestId("signal-delta")).toHaveTextContent("+26%");
    expect(screen.getByTestId("signal-delta-period")).toHaveTextContent("increasing over 90 days");
  });
});
