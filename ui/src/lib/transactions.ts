// The transaction table's model: rows prepared once, then filtered, sorted and summed fast
// enough to run on every keystroke over 100,000 rows.
import type { CardTransaction } from "./bindings/CardTransaction";

export interface Row {
  tx: CardTransaction;
  /** createdAt as epoch milliseconds. */
  time: number;
  /** Months since year 0 (UTC), the monthly chart's bucket. */
  month: number;
  /** Lower-case text the filter field searches. */
  haystack: string;
}

export function prepare(tx: CardTransaction): Row {
  const time = Date.parse(tx.createdAt);
  const date = new Date(time);
  return {
    tx,
    time,
    month: date.getUTCFullYear() * 12 + date.getUTCMonth(),
    haystack: [
      tx.merchantName,
      tx.category,
      tx.descriptor,
      tx.city,
      tx.street,
      tx.country,
      tx.zip,
      tx.amount.toFixed(2),
      String(tx.transactionId),
    ]
      .join("\u0001")
      .toLowerCase(),
  };
}

export type PendingFilter = "all" | "pending" | "settled";

export interface Filter {
  text: string;
  /** `YYYY-MM-DD`, inclusive, UTC days; empty for no bound. */
  from: string;
  to: string;
  pending: PendingFilter;
}

export const emptyFilter: Filter = { text: "", from: "", to: "", pending: "all" };

export type SortKey = "time" | "merchant" | "category" | "city" | "amount" | "status";
export interface Sort {
  key: SortKey;
  descending: boolean;
}

export const defaultSort: Sort = { key: "time", descending: true };

const DAY_MS = 86_400_000;

function dayStart(text: string): number | null {
  if (!text) return null;
  const value = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(value) ? null : value;
}

export interface Totals {
  count: number;
  /** Sum per currency, largest count first. */
  byCurrency: { currency: string; amount: number; count: number }[];
  pending: number;
  refunds: number;
}

export interface Filtered {
  rows: Row[];
  totals: Totals;
}

/** Keeps the order of `rows` (already sorted); sums what it keeps in the same pass. */
export function applyFilter(rows: readonly Row[], filter: Filter): Filtered {
  const needle = filter.text.trim().toLowerCase();
  const from = dayStart(filter.from);
  const toStart = dayStart(filter.to);
  const to = toStart === null ? null : toStart + DAY_MS - 1;
  const wantPending = filter.pending === "pending" ? true : filter.pending === "settled" ? false : null;
  const kept: Row[] = [];
  const sums = new Map<string, { amount: number; count: number }>();
  let pending = 0;
  let refunds = 0;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index];
    if (from !== null && row.time < from) continue;
    if (to !== null && row.time > to) continue;
    if (wantPending !== null && row.tx.pending !== wantPending) continue;
    if (needle && !row.haystack.includes(needle)) continue;
    kept.push(row);
    let sum = sums.get(row.tx.currency);
    if (!sum) {
      sum = { amount: 0, count: 0 };
      sums.set(row.tx.currency, sum);
    }
    sum.amount += row.tx.amount;
    sum.count += 1;
    if (row.tx.pending) pending += 1;
    if (row.tx.amount < 0) refunds += 1;
  }
  const byCurrency = [...sums.entries()]
    .map(([currency, sum]) => ({ currency, amount: Math.round(sum.amount * 100) / 100, count: sum.count }))
    .sort((a, b) => b.count - a.count);
  return { rows: kept, totals: { count: kept.length, byCurrency, pending, refunds } };
}

const collator = new Intl.Collator("en", { sensitivity: "base" });

export function comparator(sort: Sort): (a: Row, b: Row) => number {
  const direction = sort.descending ? -1 : 1;
  const compare: (a: Row, b: Row) => number = (() => {
    switch (sort.key) {
      case "time":
        return (a: Row, b: Row) => a.time - b.time;
      case "amount":
        return (a: Row, b: Row) => a.tx.amount - b.tx.amount;
      case "merchant":
        return (a: Row, b: Row) => collator.compare(a.tx.merchantName, b.tx.merchantName);
      case "category":
        return (a: Row, b: Row) => collator.compare(a.tx.category, b.tx.category);
      case "city":
        return (a: Row, b: Row) => collator.compare(a.tx.city, b.tx.city);
      case "status":
        return (a: Row, b: Row) => Number(a.tx.pending) - Number(b.tx.pending);
    }
  })();
  // Ties keep the newest first, whatever the column.
  return (a, b) => compare(a, b) * direction || b.time - a.time;
}

export function sortRows(rows: readonly Row[], sort: Sort): Row[] {
  return [...rows].sort(comparator(sort));
}

export interface MonthBar {
  month: number;
  /** Purchases less refunds, in the main currency. */
  amount: number;
  count: number;
}

/** Spending per month of `currency`, every month from the first to the last (gaps as zero). */
export function monthlySpending(rows: readonly Row[], currency: string, maxMonths = 36): MonthBar[] {
  const sums = new Map<number, MonthBar>();
  let first = Infinity;
  let last = -Infinity;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index];
    if (row.tx.currency !== currency) continue;
    let bar = sums.get(row.month);
    if (!bar) {
      bar = { month: row.month, amount: 0, count: 0 };
      sums.set(row.month, bar);
    }
    bar.amount += row.tx.amount;
    bar.count += 1;
    if (row.month < first) first = row.month;
    if (row.month > last) last = row.month;
  }
  if (sums.size === 0) return [];
  const start = Math.max(first, last - maxMonths + 1);
  const bars: MonthBar[] = [];
  for (let month = start; month <= last; month++) {
    const bar = sums.get(month);
    bars.push({ month, amount: bar ? Math.round(bar.amount * 100) / 100 : 0, count: bar?.count ?? 0 });
  }
  return bars;
}

/** A live arrival: a new row goes in its sorted place; a settled one replaces its pending row. */
export function upsert(rows: readonly Row[], row: Row, sort: Sort): Row[] {
  const compare = comparator(sort);
  const result: Row[] = [];
  let placed = false;
  for (let index = 0; index < rows.length; index++) {
    const existing = rows[index];
    if (existing.tx.transactionId === row.tx.transactionId) continue;
    if (!placed && compare(row, existing) <= 0) {
      result.push(row);
      placed = true;
    }
    result.push(existing);
  }
  if (!placed) result.push(row);
  return result;
}
