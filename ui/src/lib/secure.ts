// Pages opened in the person's browser (secure card entry, a bank's sign-in): what the app
// shows while it waits for their outcome.
import type { Account, CardSession } from "./api";

/** `waiting` while the page is open; the rest are final. */
export type WaitStatus = "waiting" | "completed" | "failed" | "expired";

export function cardWaitStatus(session: CardSession): WaitStatus {
  return session.status === "pending" ? "waiting" : session.status;
}

export function accountWaitStatus(account: Account): WaitStatus {
  switch (account.status) {
    case "pending":
    case "reauth_required":
      return "waiting";
    case "linked":
      return "completed";
    default:
      return account.status;
  }
}

export function isFinal(status: WaitStatus): boolean {
  return status !== "waiting";
}

/** The account as last reported: a newer answer of a watch replaces the listed one. */
export function latest(listed: Account[], updates: Record<number, Account>): Account[] {
  return listed.map((account) => updates[account.accountId] ?? account);
}

/** Accounts whose link may still be open: the app follows them until they settle. */
export function toFollow(accounts: Account[], followed: Iterable<number>): Account[] {
  const known = new Set(followed);
  return accounts.filter(
    (account) => account.status === "pending" && !known.has(account.accountId),
  );
}

const permissionWords: Record<string, string> = {
  balances: "Balances",
  cards: "Cards",
  transactions: "Transactions",
};

export function permissionLabel(permission: string): string {
  return permissionWords[permission] ?? permission;
}

/** Days of consent left before the service asks the person to renew it. */
export const RENEW_WITHIN_DAYS = 7;

/**
 * A linked account whose consent has run out or runs out within a week: what the banner says,
 * or null when it needs nothing.
 */
export function consentNotice(
  account: Account,
  now: number,
): { lapsed: boolean; endsAt: number } | null {
  if (account.status === "reauth_required") {
    const endsAt = account.consentExpiresAt ? Date.parse(account.consentExpiresAt) : now;
    return { lapsed: true, endsAt };
  }
  if (account.status !== "linked" || !account.consentExpiresAt) return null;
  const endsAt = Date.parse(account.consentExpiresAt);
  if (Number.isNaN(endsAt) || endsAt - now > RENEW_WITHIN_DAYS * 86_400_000) return null;
  return { lapsed: endsAt <= now, endsAt };
}
