import { describe, expect, it } from "vitest";
import type { Account } from "./bindings/Account";
import { accountWaitStatus, cardWaitStatus, latest, toFollow } from "./secure";

function account(accountId: number, status: Account["status"]): Account {
  return {
    accountId,
    bank: { id: "northwind", name: "Northwind Bank" },
    status,
    permissions: [],
    linkedAt: null,
    createdAt: "2026-03-07T09:00:00Z",
    expiresAt: "2026-03-07T09:15:00Z",
  };
}

describe("waiting for a page in the browser", () => {
  it("waits while the page is pending, and stops at its outcome", () => {
    expect(cardWaitStatus({ sessionId: 1, status: "pending", cardId: null, expiresAt: "" })).toBe(
      "waiting",
    );
    expect(cardWaitStatus({ sessionId: 1, status: "completed", cardId: 9, expiresAt: "" })).toBe(
      "completed",
    );
    expect(cardWaitStatus({ sessionId: 1, status: "expired", cardId: null, expiresAt: "" })).toBe(
      "expired",
    );
    expect(accountWaitStatus(account(1, "pending"))).toBe("waiting");
    expect(accountWaitStatus(account(1, "linked"))).toBe("completed");
    expect(accountWaitStatus(account(1, "failed"))).toBe("failed");
    expect(accountWaitStatus(account(1, "expired"))).toBe("expired");
  });

  it("shows each account as last reported, and follows only the pending ones not yet followed", () => {
    const listed = [account(1, "pending"), account(2, "pending"), account(3, "linked")];
    expect(latest(listed, { 1: account(1, "linked") }).map((item) => item.status)).toEqual([
      "linked",
      "pending",
      "linked",
    ]);
    expect(toFollow(listed, [2]).map((item) => item.accountId)).toEqual([1]);
  });
});
