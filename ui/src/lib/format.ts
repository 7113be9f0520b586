// How numbers, money and dates read in the dashboard.

const amountFormat = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** "1,204.10 USD", "-7.25 USD": digits first so a column of amounts lines up. */
export function money(amount: number, currency: string): string {
  return `${amountFormat.format(amount)} ${currency}`;
}

const count = new Intl.NumberFormat("en-US");
export function integer(value: number): string {
  return count.format(value);
}

const dateTime = new Intl.DateTimeFormat("en-GB", {
  day: "numeric",
  month: "short",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
});
const dateOnly = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric" });
const monthYear = new Intl.DateTimeFormat("en-GB", { month: "short", year: "2-digit", timeZone: "UTC" });

export function when(epochMs: number): string {
  return dateTime.format(epochMs);
}

const timeOnly = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit" });

/** "14:05": a time of today (the session's lookups). */
export function clock(epochMs: number): string {
  return timeOnly.format(epochMs);
}

export function day(epochMs: number): string {
  return dateOnly.format(epochMs);
}

/** `2026-03` style key → "Mar 26". */
export function monthLabel(monthIndex: number): string {
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex % 12;
  return monthYear.format(Date.UTC(year, month, 1));
}

/** The spec's compact `YYYYMMDD-HHMM` (UTC) as epoch milliseconds. */
export function parseCompact(text: string): number | null {
  const match = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})$/.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi] = match.map(Number);
  return Date.UTC(y, mo - 1, d, h, mi);
}

export function lastFour(value: number): string {
  return String(value).padStart(4, "0");
}

export function expiry(month: number, year: number): string {
  return `${String(month).padStart(2, "0")}/${String(year % 100).padStart(2, "0")}`;
}

/** "4 h 12 min", "52 s": what is left of a validity. */
export function remaining(milliseconds: number): string {
  if (milliseconds <= 0) return "expired";
  const seconds = Math.floor(milliseconds / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours > 0) return `${hours} h ${minutes} min`;
  if (minutes > 0) return `${minutes} min ${seconds % 60} s`;
  return `${seconds} s`;
}
