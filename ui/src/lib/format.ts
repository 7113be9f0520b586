// How numbers, money and dates read in the dashboard.

// Numbers and dates are formatted by hand: Intl's formatters cost a good part of a frame in
// WebKit when a filter redraws a chart's worth of labels on every keystroke, and ICU's en-GB
// month names change between versions ("Sep", "Sept").

/** "1,204,010": thousands separated by commas. */
function grouped(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "1,204.10 USD", "-7.25 USD": digits first so a column of amounts lines up. */
export function money(amount: number, currency: string): string {
  if (!Number.isFinite(amount)) return `${amount} ${currency}`;
  const fixed = Math.abs(amount).toFixed(2);
  const point = fixed.indexOf(".");
  const sign = amount < 0 && fixed !== "0.00" ? "-" : "";
  return `${sign}${grouped(fixed.slice(0, point))}${fixed.slice(point)} ${currency}`;
}

/** A count with its noun, singular for exactly one: "1 refund", "1,204 refunds", "0 refunds". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${integer(count)} ${count === 1 ? one : many}`;
}

export function integer(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const rounded = Math.round(value);
  return `${rounded < 0 ? "-" : ""}${grouped(String(Math.abs(rounded)))}`;
}

/** "812 B", "14.2 KiB", "3.1 MiB": a stored size, to one decimal from a KiB on. */
export function size(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) return `${integer(bytes)} B`;
  const units = ["KiB", "MiB", "GiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  // 1023.96 KiB would read "1024.0 KiB": it is the next unit's 1.0.
  if (value.toFixed(1) === "1024.0" && unit < units.length - 1) {
    value = 1;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

const moments = new Map<number, string>();

/** "7 Mar 2026, 09:05". A table redraws the same rows as its filter changes: each time is
 * formatted once (Intl is slow in WebKit), the cache emptied when it grows large. */
export function when(epochMs: number): string {
  let text = moments.get(epochMs);
  if (text === undefined) {
    if (moments.size > 20_000) moments.clear();
    text = `${day(epochMs)}, ${clock(epochMs)}`;
    moments.set(epochMs, text);
  }
  return text;
}

/** "14:05": a time of today (the session's lookups). */
export function clock(epochMs: number): string {
  const date = new Date(epochMs);
  return `${two(date.getHours())}:${two(date.getMinutes())}`;
}

/** "7 Mar 2026", local time. */
export function day(epochMs: number): string {
  const date = new Date(epochMs);
  return `${date.getDate()} ${MONTHS[date.getMonth()]} ${date.getFullYear()}`;
}

function two(value: number): string {
  return String(value).padStart(2, "0");
}

/** Months since year 0 → "Mar '26": a month, never mistaken for a day. */
export function monthLabel(monthIndex: number): string {
  const year = Math.floor(monthIndex / 12);
  return `${MONTHS[monthIndex - year * 12]} '${String(year % 100).padStart(2, "0")}`;
}

/** "7 Mar 2026, 09:05:12": the exact time (a tooltip, a detail). */
export function exactTime(epochMs: number): string {
  return `${day(epochMs)}, ${clockSeconds(epochMs)}`;
}

/** "09:05:12": a time of the day, to the second. */
export function clockSeconds(epochMs: number): string {
  return `${clock(epochMs)}:${two(new Date(epochMs).getSeconds())}`;
}

/** "just now", "12 s ago", "4 min ago", "3 h ago", "2 days ago". */
export function ago(epochMs: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - epochMs) / 1000));
  if (seconds < 5) return "just now";
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  return `${days} day${days === 1 ? "" : "s"} ago`;
}

/** A time from now: "in 20 h", "in 4 min", "in 2 days" ahead; "3 h ago" behind (see `ago`). */
export function fromNow(epochMs: number, now = Date.now()): string {
  if (epochMs <= now) return ago(epochMs, now);
  const seconds = Math.round((epochMs - now) / 1000);
  if (seconds < 60) return "in less than a minute";
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `in ${hours} h`;
  const days = Math.round(hours / 24);
  return `in ${days} days`;
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
