import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { afterEach, describe, expect, it } from "vitest";
import type { CardRecord, SandboxTransactionResponse } from "../lib/api";
import { sampleTransaction } from "../lib/fixtures.test-helpers";
import { app } from "../lib/state.svelte";
import SandboxPurchase from "./developers/SandboxPurchase.svelte";

afterEach(() => clearMocks());

const card: CardRecord = {
  cardId: 7,
  lastFour: 4242,
  firstName: "Ada",
  lastName: "Lovelace",
  expMonth: 12,
  expYear: 2030,
  enrolledAt: "20260101-1200",
  brand: "Visa",
  countryCode: "USA",
  clientUserId: null,
  metadata: {},
};

function answer(request: Record<string, unknown>): SandboxTransactionResponse {
  return {
    message: request.declined ? "Transaction declined" : "Transaction created",
    transactionId: 901,
    cardId: 7,
    lastFour: 4242,
    transaction: {
      ...sampleTransaction(),
      transactionId: 901,
      amount: Number(request.amount ?? 3.5),
      currency: "USD",
      merchantName: String(request.merchantName ?? "Corner Café"),
    },
    ...(request.declined ? { declined: true } : {}),
  };
}

/** The app with `cards`; every purchase asked for is kept in `asked`, answered by `reply`. */
function service(
  cards: CardRecord[],
  reply: (request: Record<string, unknown>) => unknown = answer,
): Record<string, unknown>[] {
  const asked: Record<string, unknown>[] = [];
  mockIPC((command, args) => {
    if (command === "list_cards") return cards;
    if (command === "simulate_purchase") {
      const request = (args as { request: Record<string, unknown> }).request;
      asked.push(request);
      return reply(request);
    }
    return null;
  });
  return asked;
}

const input = (testid: string) => screen.getByTestId(testid) as HTMLInputElement;

async function typeIn(testid: string, value: string) {
  await fireEvent.input(input(testid), { target: { value } });
}

describe("SandboxPurchase", () => {
  it("asks for a card first when the account has none, with the way to Cards", async () => {
    service([]);
    render(SandboxPurchase);
    expect(await screen.findByTestId("purchase-empty")).toHaveTextContent(/^Enroll a card first/);
    await fireEvent.click(screen.getByTestId("purchase-enroll"));
    expect(app.route).toEqual({ name: "cards", enroll: true });
  });

  it("lists the cards and checks the amount and the day before sending anything", async () => {
    const asked = service([card]);
    render(SandboxPurchase);
    const select = (await screen.findByTestId("purchase-card")) as HTMLSelectElement;
    expect(select.value).toBe("7");
    expect(select).toHaveTextContent("Visa •••• 4242 · Ada Lovelace");
    expect(screen.getByLabelText("Card")).toBe(select);
    await typeIn("purchase-amount", "12.345");
    await typeIn("purchase-date", "2999-01-01");
    await fireEvent.click(screen.getByTestId("make-purchase"));
    await waitFor(() =>
      expect(screen.getByTestId("purchase-amount-error")).toHaveTextContent(/at most 2 decimals/),
    );
    expect(screen.getByTestId("purchase-date-error")).toHaveTextContent(/up to today/);
    expect(input("purchase-amount")).toHaveAttribute("aria-invalid", "true");
    await waitFor(() => expect(document.activeElement).toBe(input("purchase-amount")));
    expect(asked).toEqual([]);
  });

  it("sends a backdated purchase as RFC 3339 in UTC and says what was made", async () => {
    const asked = service([card]);
    render(SandboxPurchase);
    await screen.findByTestId("purchase-form");
    await typeIn("purchase-amount", "12.34");
    await typeIn("purchase-merchant", "  Corner Café ");
    await typeIn("purchase-date", "2026-01-02");
    await typeIn("purchase-time", "09:30");
    expect(screen.getByTestId("purchase-when")).toHaveTextContent("2026-01-02T09:30:00Z");
    await fireEvent.click(screen.getByTestId("make-purchase"));
    expect(await screen.findByTestId("purchase-result-line")).toHaveTextContent(
      "Purchase 12.34 USD at Corner Café made (transaction 901)",
    );
    expect(asked).toEqual([
      { cardId: 7, amount: 12.34, merchantName: "Corner Café", createdAt: "2026-01-02T09:30:00Z" },
    ]);
    await fireEvent.click(screen.getByTestId("purchase-inspect"));
    expect(app.route).toEqual({
      name: "developers",
      tab: "inspector",
      inspect: "transactionId:901",
    });
  });

  it("says a declined one was only an event", async () => {
    const asked = service([card]);
    render(SandboxPurchase);
    await fireEvent.click(await screen.findByTestId("purchase-declined"));
    await fireEvent.click(screen.getByTestId("make-purchase"));
    expect(await screen.findByTestId("purchase-result-line")).toHaveTextContent(
      "Declined: transaction.declined was sent; it is in no list (id 901)",
    );
    expect(asked).toEqual([{ cardId: 7, declined: true }]);
    expect(screen.queryByTestId("purchase-inspect")).toBeNull();
  });

  it("says it is making the purchase while it goes, the button held", async () => {
    let release: () => void = () => undefined;
    service(
      [card],
      (request) => new Promise((resolve) => (release = () => resolve(answer(request)))),
    );
    render(SandboxPurchase);
    await fireEvent.click(await screen.findByTestId("make-purchase"));
    const button = screen.getByTestId("make-purchase");
    await waitFor(() => expect(button).toHaveTextContent("Making purchase…"));
    expect(button).toBeDisabled();
    release();
    await screen.findByTestId("purchase-result-line");
    expect(button).toHaveTextContent("Make purchase");
    expect(button).toBeEnabled();
  });

  it("shows the service's refusal beside its field, until the field changes", async () => {
    service([card], () => {
      throw {
        code: "invalid_request",
        message: "the request is invalid",
        requestId: "req_1",
        status: 400,
        details: [{ field: "merchantName", message: "must not contain control characters" }],
      };
    });
    render(SandboxPurchase);
    await screen.findByTestId("purchase-form");
    await typeIn("purchase-merchant", "Shop");
    await fireEvent.click(screen.getByTestId("make-purchase"));
    expect(await screen.findByTestId("purchase-merchant-error")).toHaveTextContent(
      "The merchant name must not contain control characters.",
    );
    expect(screen.queryByRole("alert")).toBeNull();
    await typeIn("purchase-merchant", "Shop 2");
    expect(screen.queryByTestId("purchase-merchant-error")).toBeNull();
  });

  it("shows any other failure on one line near the button", async () => {
    service([card], () => {
      throw {
        code: "not_found",
        message: "no such card",
        requestId: "req_2",
        status: 404,
        details: [],
      };
    });
    render(SandboxPurchase);
    await fireEvent.click(await screen.findByTestId("make-purchase"));
    expect(await screen.findByRole("alert")).toHaveTextContent("No such card.");
    expect(screen.queryByTestId("purchase-result")).toBeNull();
  });
});
