// A sandbox purchase asked for from the Developers › Sandbox tab: the amount as typed, the day
// and time it is backdated to (sent as `createdAt`, RFC 3339 in UTC), and the one line that says
// what was made. The checks here are the service's (`POST /sandbox/transactions`), said to a
// person at a form; the service still judges what is sent.
import type { CardRecord } from "./bindings/CardRecord";
import type { SandboxTransactionResponse } from "./bindings/SandboxTransactionResponse";
import { dayLabel, daysInMonth, parseIso, today } from "./dates";
import { lastFour, money } from "./format";

/** The largest amount either way, in major units (the service's `MAX_AMOUNT`). */
export const MAX_AMOUNT = 1_000_000;
/** How far back a purchase can be made, in months (the service's history). */
export const HISTORY_MONTHS = 36;

/** The amount typed: `amount` to send (none when the field is empty: the service picks one), or
 *  what is wrong with it. "12.34", "-5", "1,250.50" and "12,5" are amounts. */
export function parseAmount(text: string): { amount?: number; problem?: string } {
  const typed = text.replace(/[\s\u00a0\u202f]/g, "").replace(/^\u2212/, "-");
  if (!typed) return {};
  let plain: string;
  if (/^[-+]?\d{1,3}(,\d{3})+(\.\d*)?$/.test(typed)) plain = typed.replaceAll(",", "");
  else if (/^[-+]?(\d+([.,]\d*)?|[.,]\d+)$/.test(typed)) plain = typed.replace(",", ".");
  else return { problem: "Type the amount as a number, e.g. 12.34." };
  const decimals = (plain.split(".")[1] ?? "").replace(/0+$/, "");
  if (decimals.length > 2)
    return { problem: "The amount can have at most 2 decimals, e.g. 12.34." };
  const amount = Number(plain);
  if (amount === 0) return { problem: "The amount cannot be zero: leave it empty for any amount." };
  if (Math.abs(amount) > MAX_AMOUNT)
    return { problem: "The amount can be at most 1,000,000 either way." };
  return { amount };
}

/** The earliest instant a purchase can be made at: `now` 36 months back (the day kept, or the
 *  month's last when that month is shorter, as the service counts months). */
export function historyStart(now: number): number {
  const at = new Date(now);
  const months = at.getUTCFullYear() * 12 + at.getUTCMonth() - HISTORY_MONTHS;
  const [year, month] = [Math.floor(months / 12), months % 12];
  const day = Math.min(at.getUTCDate(), daysInMonth(year, month + 1));
  return Date.UTC(
    year,
    month,
    day,
    at.getUTCHours(),
    at.getUTCMinutes(),
    at.getUTCSeconds(),
    at.getUTCMilliseconds(),
  );
}

/** `YYYY-MM-DDTHH:MM:SSZ` of an instant. */
export function rfc3339(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

/** "7 Mar 2023 at 14:05 UTC". */
function moment(epochMs: number): string {
  const at = new Date(epochMs);
  const day = `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}`;
  return `${dayLabel(day)} at ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())} UTC`;
}

export interface Backdated {
  /** What to send as `createdAt`; none when no day was given (the purchase is made now). */
  createdAt?: string;
  /** What is wrong, by field. */
  problems: { date?: string; time?: string };
}

/**
 * The instant a purchase is backdated to: `day` (`YYYY-MM-DD`, or what was typed when it is not
 * a day) at `time` (`HH:MM` or `HH:MM:SS`, UTC; the time of day it is now when empty), from
 * 36 months ago to `now`.
 */
export function backdate(day: string, time: string, now: number): Backdated {
  const typedDay = day.trim();
  const typedTime = time.trim();
  if (!typedDay && !typedTime) return { problems: {} };
  if (!typedDay) return { problems: { date: "Pick the day too, or leave the time empty." } };
  const parsed = parseIso(typedDay);
  let [hours, minutes, seconds] = [Number.NaN, Number.NaN, Number.NaN];
  if (typedTime) {
    const match = /^(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?$/.exec(typedTime);
    if (match)
      [hours, minutes, seconds] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  } else {
    const at = new Date(now);
    [hours, minutes, seconds] = [at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds()];
  }
  const problems: Backdated["problems"] = {};
  if (!parsed) problems.date = "Type a day, e.g. 7 Mar 2026, or pick one.";
  if (!(hours < 24 && minutes < 60 && seconds < 60))
    problems.time = "Type the time as hours and minutes, e.g. 14:30.";
  if (!parsed || problems.time) return { problems };
  const at = Date.UTC(parsed.year, parsed.month - 1, parsed.day, hours, minutes, seconds);
  if (at > now) {
    if (typedDay > today(now))
      return { problems: { date: "Pick a day up to today: a purchase can only be backdated." } };
    return {
      problems: { time: "That is later than now (UTC): pick an earlier time, or leave it empty." },
    };
  }
  const earliest = historyStart(now);
  if (at < earliest)
    return {
      problems: {
        date: `A purchase can go back at most ${HISTORY_MONTHS} months, to ${moment(earliest)}.`,
      },
    };
  return { createdAt: rfc3339(at), problems };
}

/** A card in the picker: "Visa •••• 4242 · Ada Lovelace". */
export function cardLabel(card: CardRecord): string {
  const holder = `${card.firstName} ${card.lastName}`.trim();
  return `${card.brand} •••• ${lastFour(card.lastFour)}${holder ? ` · ${holder}` : ""}`;
}

/** What was made, in one line. */
export function purchaseLine(made: SandboxTransactionResponse): string {
  if (made.declined)
    return `Declined: transaction.declined was sent; it is in no list (id ${made.transactionId})`;
  const { amount, currency, merchantName } = made.transaction;
  const kind = amount < 0 ? "Refund" : "Purchase";
  return `${kind} ${money(Math.abs(amount), currency)} at ${merchantName} made (transaction ${made.transactionId})`;
}
