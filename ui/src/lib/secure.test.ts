import { describe, expect, it } from "vitest";
import type { Account } from "./bindings/Account";
import { accountWaitStatus, cardWaitStatus, consentNotice, latest, toFollow } from "./secure";

function account(accountId: number, status: Account["status"]): Account {
  return {
    accountId,
    bank: { id: "northwind", name: "Northwind Bank" },
    status,
    permissions: [],
    linkedAt: null,
    consentExpiresAt: null,
    refreshedAt: null,
    createdAt: "2026-03-07T09:00:00Z",
    expiresAt: "2026-03-07T09:15:00Z",
    clientUserId: null,
    metadata: {},
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

describe("consentNotice", () => {
  const now = Date.parse("2026-11-28T00:00:00Z");
  const withConsent = (status: Account["status"], consentExpiresAt: string | null): Account => ({
    ...account(1, status),
    consentExpiresAt,
  });
  it("says nothing of a consent with more than a week left", () => {
    expect(consentNotice(withConsent("linked", "2026-12-20T00:00:00Z"), now)).toBeNull();
    expect(consentNotice(withConsent("pending", null), now)).toBeNull();
  });
  it("warns in the last week and says when a consent ran out", () => {
    expect(consentNotice(withConsent("linked", "2026-12-01T00:00:00Z"), now)).toEqual({
      lapsed: false,
      endsAt: Date.parse("2026-12-01T00:00:00Z"),
    });
    expect(consentNotice(withConsent("reauth_required", "2026-11-20T00:00:00Z"), now)?.lapsed).toBe(
      true,
    );
  });
});
