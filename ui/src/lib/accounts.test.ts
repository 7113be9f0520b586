import { describe, expect, it } from "vitest";
import type { Account } from "./bindings/Account";
import { accountAtBank, accountHolder, accountName } from "./accounts";

const pending: Account = {
  accountId: 3,
  bank: { id: "northwind", name: "Northwind Bank" },
  status: "pending",
  permissions: [],
  linkedAt: null,
  createdAt: "2026-11-28T10:00:00Z",
  expiresAt: "2026-11-28T10:15:00Z",
  consentExpiresAt: null,
  refreshedAt: null,
  clientUserId: null,
  metadata: {},
};

describe("accountName", () => {
  it("names a linked account as its bank does, with the last four digits", () => {
    const linked = {
      ...pending,
      name: "Everyday Checking",
      type: "checking",
      mask: "0417",
    } as const;
    expect(accountName(linked)).toBe("Everyday Checking •••• 0417");
    expect(accountHolder(linked)).toBe("Northwind Bank · checking");
    expect(accountAtBank(linked)).toBe("Everyday Checking •••• 0417 at Northwind Bank");
  });

  it("names an account not linked yet by its bank", () => {
    expect(accountName(pending)).toBe("Northwind Bank");
    expect(accountHolder(pending)).toBeNull();
    expect(accountAtBank(pending)).toBe("Northwind Bank");
  });
});
