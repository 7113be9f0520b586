// Days as the app writes them ("7 Mar 2026", never the toolkit's "03/07/2026"), the day
// strings forms and filters keep (`YYYY-MM-DD`, UTC days, as the transaction filters count),
// and the presets of the date-range control.

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
export const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

export interface Day {
  year: number;
  /** 1 to 12. */
  month: number;
  day: number;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, "0");
}

export function isoOf({ year, month, day }: Day): string {
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/** The UTC day of an instant. */
export function dayOf(epochMs: number): Day {
  const date = new Date(epochMs);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `YYYY-MM-DD` of a real day, else `null`. */
export function parseIso(text: string): Day | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return { year, month, day };
}

/** What a person types for a day: `1987-04-23`, `23 Apr 1987`, `23 April 1987`; else `null`. */
export function parseDay(text: string): Day | null {
  const iso = parseIso(text);
  if (iso) return iso;
  const match = /^(\d{1,2})\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})$/.exec(text.trim());
  if (!match) return null;
  const name = match[2].toLowerCase();
  const index = MONTH_NAMES.findIndex(
    (month) => month.toLowerCase() === name || month.slice(0, 3).toLowerCase() === name,
  );
  if (index === -1) return null;
  return parseIso(`${match[3]}-${pad(index + 1)}-${pad(Number(match[1]))}`);
}

/** "7 Mar 2026" of `YYYY-MM-DD`; the text itself when it is not a day. */
export function dayLabel(iso: string): string {
  const day = parseIso(iso);
  return day ? `${day.day} ${MONTHS[day.month - 1]} ${day.year}` : iso;
}

/** `iso` moved by whole days. */
export function addDays(iso: string, days: number): string {
  const day = parseIso(iso);
  if (!day) return iso;
  return isoOf(dayOf(Date.UTC(day.year, day.month - 1, day.day + days)));
}

/** `iso` moved by whole months, the day kept where the month has it. */
export function addMonths(iso: string, months: number): string {
  const day = parseIso(iso);
  if (!day) return iso;
  const index = day.year * 12 + day.month - 1 + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return isoOf({ year, month, day: Math.min(day.day, daysInMonth(year, month)) });
}

export function today(now = Date.now()): string {
  return isoOf(dayOf(now));
}

export interface Preset {
  id: "all" | "7d" | "30d" | "month" | "12m";
  label: string;
  from: string;
  to: string;
}

/** The ranges offered first; each ends today (an open end). */
export function presets(now = Date.now()): Preset[] {
  const end = today(now);
  const { year, month } = dayOf(now);
  return [
    { id: "all", label: "All time", from: "", to: "" },
    { id: "7d", label: "Last 7 days", from: addDays(end, -6), to: "" },
    { id: "30d", label: "Last 30 days", from: addDays(end, -29), to: "" },
    { id: "month", label: "This month", from: isoOf({ year, month, day: 1 }), to: "" },
    { id: "12m", label: "Last 12 months", from: addDays(addMonths(end, -12), 1), to: "" },
  ];
}

/** What the range control says: a preset's name, or the days ("7 Mar 2026 – 12 Apr 2026"). */
export function rangeLabel(from: string, to: string, now = Date.now()): string {
  const preset = presets(now).find((candidate) => candidate.from === from && candidate.to === to);
  if (preset) return preset.label;
  if (from && to) return from === to ? dayLabel(from) : `${dayLabel(from)} – ${dayLabel(to)}`;
  if (from) return `Since ${dayLabel(from)}`;
  return `Until ${dayLabel(to)}`;
}
