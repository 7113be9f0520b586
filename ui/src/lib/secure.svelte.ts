// The pages the app waits for, kept across screens: leaving the Cards screen does not stop
// waiting for the card being entered in the browser.
import { api, toApiError, type Account, type ApiError, type Bank, type SecurePage } from "./api";
import { accountName } from "./accounts";
import {
  accountWaitStatus,
  cardWaitStatus,
  isFinal,
  permissionLabel,
  type WaitStatus,
} from "./secure";
import { go } from "./state.svelte";
import { toast } from "./toast.svelte";

export interface PageWait {
  page: SecurePage;
  status: WaitStatus;
  /** Why a watch stopped without an outcome (the service answered an error). */
  error: ApiError | null;
}

export interface CardWait extends PageWait {
  cardId: number | null;
}

export interface BankWait extends PageWait {
  bank: Bank;
  account: Account | null;
}

export const waits = $state({
  card: null as CardWait | null,
  /** Bank links started in this app, newest first. */
  banks: [] as BankWait[],
  /** The newest answer for each followed account. */
  accounts: {} as Record<number, Account>,
  /** Counts completed card pages: the card list reloads when it moves. */
  cardsEnrolled: 0,
  /** The card the last completed page enrolled, for the list to mark. */
  lastCardId: null as number | null,
});

const stops = new Map<string, () => Promise<void>>();

async function stop(key: string): Promise<void> {
  const stopWatch = stops.get(key);
  stops.delete(key);
  await stopWatch?.().catch(() => undefined);
}

/** Starts a secure card-entry page, opens it in the browser and waits for the card. */
export async function enrollOnSecurePage(): Promise<void> {
  await cancelCardWait();
  const page = await api.startCardSession();
  waits.card = { page, status: "waiting", error: null, cardId: null };
  const key = `card:${page.id}`;
  const stopWatch = await api.watchCardSession(
    page.id,
    (session) => {
      const current = waits.card;
      if (current?.page.id !== page.id) return;
      const status = cardWaitStatus(session);
      waits.card = { ...current, status, cardId: session.cardId };
      if (status === "completed") {
        // Success is said in a toast; the waiting panel goes, the list marks the new card.
        const cardId = session.cardId;
        waits.lastCardId = cardId;
        waits.cardsEnrolled += 1;
        toast("Card enrolled on the secure page", {
          detail: cardId === null ? undefined : `Card id ${cardId}`,
          action:
            cardId === null
              ? undefined
              : { label: "Show", run: () => go({ name: "card", cardId }) },
        });
        waits.card = null;
      }
      if (isFinal(status)) void stop(key);
    },
    (error) => {
      const current = waits.card;
      if (current?.page.id === page.id) waits.card = { ...current, error };
    },
  );
  stops.set(key, stopWatch);
}

/** Stops waiting (the page itself stays valid until it expires). */
export async function cancelCardWait(): Promise<void> {
  const current = waits.card;
  waits.card = null;
  if (current) await stop(`card:${current.page.id}`);
}

/** Starts linking an account at `bank`, opens the bank's sign-in page and follows the account. */
export async function linkBank(bank: Bank): Promise<BankWait> {
  const page = await api.linkAccount(bank.id);
  const wait: BankWait = { page, status: "waiting", error: null, bank, account: null };
  waits.banks = [
    wait,
    ...waits.banks.filter((other) => other.bank.id !== bank.id || other.status === "waiting"),
  ];
  await followAccount(page.id);
  return wait;
}

/** Follows an account until it is no longer pending (a link started here or earlier). */
export async function followAccount(accountId: number): Promise<void> {
  const key = `account:${accountId}`;
  if (stops.has(key)) return;
  stops.set(key, async () => undefined);
  try {
    const stopWatch = await api.watchAccount(
      accountId,
      (account) => {
        waits.accounts[accountId] = account;
        const status = accountWaitStatus(account);
        const waited = waits.banks.find((wait) => wait.page.id === accountId);
        if (status === "completed" && waited) {
          // Linked: a toast says so, the panel goes, the account shows in the list.
          const shared = account.permissions.map(permissionLabel).join(", ") || "nothing";
          toast(`${account.bank.name} linked`, {
            detail: account.name
              ? `${accountName(account)} · shared: ${shared}`
              : `Shared: ${shared}`,
            action: { label: "Show", run: () => go({ name: "accounts", accountId }) },
          });
          waits.banks = waits.banks.filter((wait) => wait.page.id !== accountId);
        } else {
          waits.banks = waits.banks.map((wait) =>
            wait.page.id === accountId ? { ...wait, status, account } : wait,
          );
        }
        if (isFinal(status)) void stop(key);
      },
      (error) => {
        waits.banks = waits.banks.map((wait) =>
          wait.page.id === accountId ? { ...wait, error } : wait,
        );
        void stop(key);
      },
    );
    if (stops.has(key)) stops.set(key, stopWatch);
    else await stopWatch().catch(() => undefined);
  } catch (failure) {
    stops.delete(key);
    throw toApiError(failure);
  }
}

/** Stops waiting for a bank link and takes its panel away. */
export async function cancelBankWait(accountId: number): Promise<void> {
  waits.banks = waits.banks.filter((wait) => wait.page.id !== accountId);
  await stop(`account:${accountId}`);
}

export function dismissBankWait(accountId: number): void {
  waits.banks = waits.banks.filter((wait) => wait.page.id !== accountId);
}

/** At sign-out: the app stops every watch on its side; forget them here too. */
export function forgetWaits(): void {
  stops.clear();
  waits.card = null;
  waits.banks = [];
  waits.accounts = {};
}
