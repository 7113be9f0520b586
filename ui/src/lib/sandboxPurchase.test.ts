import { describe, expect, it } from "vitest";
import { sentence } from "./forms";
import type { CardTransaction } from "./bindings/CardTransaction";
import {
  backdate,
  cardLabel,
  historyStart,
  parseAmount,
  purchaseLine,
  rfc3339,
} from "./sandboxPurchase";

describe("the amount of a sandbox purchase", () => {
  it("is left to the service when empty", () => {
    expect(parseAmount("")).toEqual({});
    expect(parseAmount("   ")).toEqual({});
  });

  it("reads major units, a decimal comma, thousands and a sign", () => {
    expect(parseAmount("12.34")).toEqual({ amount: 12.34 });
    expect(parseAmount(" 12,5 ")).toEqual({ amount: 12.5 });
    expect(parseAmount("1,250.50")).toEqual({ amount: 1250.5 });
    expect(parseAmount("-5")).toEqual({ amount: -5 });
    expect(parseAmount("−7.25")).toEqual({ amount: -7.25 });
    expect(parseAmount("1 000 000")).toEqual({ amount: 1_000_000 });
    expect(parseAmount("12.340")).toEqual({ amount: 12.34 });
  });

  it("says what is wrong, as the service checks it", () => {
    expect(parseAmount("ten").problem).toMatch(/as a number/);
    expect(parseAmount("12.345").problem).toMatch(/at most 2 decimals/);
    expect(parseAmount("0").problem).toMatch(/cannot be zero/);
    expect(parseAmount("0.00").problem).toMatch(/cannot be zero/);
    expect(parseAmount("1000000.01").problem).toMatch(/at most 1,000,000 either way/);
    expect(parseAmount("-1000001").problem).toMatch(/at most 1,000,000 either way/);
  });
});

describe("a purchase backdated", () => {
  const now = Date.UTC(2026, 2, 31, 14, 5, 9);

  it("is made now when no day is given", () => {
    expect(backdate("", "", now)).toEqual({ problems: {} });
  });

  it("is sent as RFC 3339 in UTC, at the time of day it is now when no time is given", () => {
    expect(backdate("2026-01-02", "09:30", now).createdAt).toBe("2026-01-02T09:30:00Z");
    expect(backdate("2026-01-02", "9.30:15", now).createdAt).toBe("2026-01-02T09:30:15Z");
    expect(backdate("2026-01-02", "", now).createdAt).toBe("2026-01-02T14:05:09Z");
    expect(backdate("2026-03-31", "", now).createdAt).toBe(rfc3339(now));
  });

  it("says what is wrong beside the field that is", () => {
    expect(backdate("", "10:00", now).problems.date).toMatch(/day too/);
    expect(backdate("tomorrow", "", now).problems.date).toMatch(/Type a day/);
    expect(backdate("2026-01-02", "25:00", now).problems.time).toMatch(/hours and minutes/);
    expect(backdate("2026-04-01", "", now).problems.date).toMatch(/up to today/);
    expect(backdate("2026-03-31", "15:00", now).problems.time).toMatch(/later than now/);
  });

  it("goes back 36 months at most, as the service counts them", () => {
    expect(rfc3339(historyStart(now))).toBe("2023-03-31T14:05:09Z");
    // A month shorter than the day: its last day.
    expect(rfc3339(historyStart(Date.UTC(2027, 4, 31, 8)))).toBe("2024-05-31T08:00:00Z");
    expect(rfc3339(historyStart(Date.UTC(2026, 1, 28, 8)))).toBe("2023-02-28T08:00:00Z");
    expect(rfc3339(historyStart(Date.UTC(2028, 1, 29, 8)))).toBe("2025-02-28T08:00:00Z");
    expect(backdate("2023-03-31", "14:06", now).createdAt).toBe("2023-03-31T14:06:00Z");
    expect(backdate("2023-03-31", "14:04", now).problems.date).toBe(
      "A purchase can go back at most 36 months, to 31 Mar 2023 at 14:05 UTC.",
    );
  });
});

describe("what a purchase made says", () => {
  const transaction = {
    transactionId: 41,
    amount: 12.34,
    currency: "USD",
    merchantName: "Corner Café",
  } as CardTransaction;
  const made = { message: "", transactionId: 41, cardId: 3, lastFour: 42, transaction };

  it("names the amount, the merchant and the transaction", () => {
    expect(purchaseLine(made)).toBe("Purchase 12.34 USD at Corner Café made (transaction 41)");
    expect(purchaseLine({ ...made, transaction: { ...transaction, amount: -5 } })).toBe(
      "Refund 5.00 USD at Corner Café made (transaction 41)",
    );
  });

  it("says a declined one is in no list", () => {
    expect(purchaseLine({ ...made, declined: true })).toBe(
      "Declined: transaction.declined was sent; it is in no list (id 41)",
    );
  });

  it("lists a card by brand, last four and holder", () => {
    const card = { brand: "Visa", lastFour: 42, firstName: "Ada", lastName: "Lovelace" };
    expect(cardLabel(card as Parameters<typeof cardLabel>[0])).toBe(
      "Visa •••• 0042 · Ada Lovelace",
    );
  });

  it("puts the service's field messages in a person's words", () => {
    expect(sentence("amount", "must have at most 2 decimals (major units, e.g. 12.34)")).toBe(
      "The amount must have at most 2 decimals (major units, e.g. 12.34).",
    );
    expect(
      sentence(
        "createdAt",
        "must be a time (RFC 3339, e.g. 2026-01-31T12:00:00Z) from 36 months ago to now",
      ),
    ).toBe("Pick a time from 36 months ago up to now.");
  });
});
