// How the figures of a period read (computed in crates/dashboard's `performance`): a change
// against the period before ("+12%", "12% more than the previous 30 days"), a period in
// words, a chart's buckets.
import type { Bucket } from "./bindings/Bucket";
import type { Compared } from "./bindings/Compared";
import type { Period } from "./bindings/Period";
import type { SalesFigures } from "./bindings/SalesFigures";
import { dayLabel, parseIso } from "./dates";
import { integer, money } from "./format";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

export type Tone = "up" | "down" | "flat" | "new";

export interface Change {
  /** "+12%", "−4%", "0%", "new". */
  text: string;
  tone: Tone;
  /** For screen readers and tooltips: "12% more than the previous 30 days". */
  words: string;
}

/** A ratio of change (0.12 for 12% more) as the tables write it; `null` when nothing was sold
 *  before. Under 1% reads 0%; above 999% as "×11" times. */
export function change(ratio: number | null, against: string): Change {
  if (ratio === null) return { text: "new", tone: "new", words: `nothing in ${against}` };
  const percent = Math.round(ratio * 100);
  if (percent === 0) return { text: "0%", tone: "flat", words: `as much as ${against}` };
  const up = percent > 0;
  const text =
    percent > 999 ? `×${integer(ratio + 1)}` : `${up ? "+" : "−"}${integer(Math.abs(percent))}%`;
  return {
    text,
    tone: up ? "up" : "down",
    words: `${integer(Math.abs(percent))}% ${up ? "more" : "less"} than ${against}`,
  };
}

/** The change of a sum against the one before (the overview's money). */
export function compared(sum: Compared, against: string): Change {
  if (sum.previous === 0) {
    return sum.current === 0
      ? { text: "0%", tone: "flat", words: `as much as ${against}` }
      : change(null, against);
  }
  return change((sum.current - sum.previous) / Math.abs(sum.previous), against);
}

/** "the previous 30 days", "the previous day", "1–16 Feb": what a period is compared with. */
export function previousWords(period: Period): string {
  const days = daysBetween(period.from, period.to) + 1;
  return days === 1 ? "the day before" : `the previous ${integer(days)} days`;
}

/** "1–16 Mar 2026", "28 Feb – 16 Mar 2026", "16 Mar 2026". */
export function spanLabel(from: string, to: string): string {
  const a = parseIso(from);
  const b = parseIso(to);
  if (!a || !b) return `${from} – ${to}`;
  if (from === to) return dayLabel(from);
  if (a.year === b.year && a.month === b.month)
    return `${a.day}–${b.day} ${MONTHS[b.month - 1]} ${b.year}`;
  if (a.year === b.year) return `${a.day} ${MONTHS[a.month - 1]} – ${dayLabel(to)}`;
  return `${dayLabel(from)} – ${dayLabel(to)}`;
}

function daysBetween(from: string, to: string): number {
  const a = parseIso(from);
  const b = parseIso(to);
  if (!a || !b) return 0;
  return Math.round(
    (Date.UTC(b.year, b.month - 1, b.day) - Date.UTC(a.year, a.month - 1, a.day)) / 86_400_000,
  );
}

/** A bucket's label on a chart's axis: "16 Mar" (a day, or the first day of a week), "Mar '26". */
export function bucketLabel(start: string, bucket: Bucket): string {
  const day = parseIso(start);
  if (!day) return start;
  if (bucket === "month")
    return `${MONTHS[day.month - 1]} '${String(day.year % 100).padStart(2, "0")}`;
  return `${day.day} ${MONTHS[day.month - 1]}`;
}

/** What a bucket covers in words: "16 Mar 2026", "the week from 8 Apr 2026", "April 2026". */
function bucketWords(start: string, bucket: Bucket): string {
  if (bucket === "day") return dayLabel(start);
  if (bucket === "week") return `the week from ${dayLabel(start)}`;
  const day = parseIso(start);
  return day ? `${MONTHS[day.month - 1]} ${day.year}` : start;
}

export interface ChartBar {
  key: string;
  label: string;
  value: number;
  detail: string;
}

/** The bars of a sales chart: one per bucket, each with its sum, count and refunds in words. */
export function trendBars(figures: SalesFigures, bucket: Bucket, currency: string): ChartBar[] {
  return figures.trend.map((point) => {
    const refunds = point.refunds > 0 ? `, ${money(point.refunds, currency)} refunded` : "";
    return {
      key: point.start,
      label: bucketLabel(point.start, bucket),
      value: point.sales,
      detail: `${bucketWords(point.start, bucket)}: ${money(point.sales, currency)} in ${integer(point.count)} sale${point.count === 1 ? "" : "s"}${refunds}`,
    };
  });
}

/** "Daily", "Weekly", "Monthly". */
export function bucketAdjective(bucket: Bucket): string {
  return bucket === "day" ? "Daily" : bucket === "week" ? "Weekly" : "Monthly";
}
