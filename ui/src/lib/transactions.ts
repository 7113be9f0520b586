// The transaction table's model: rows prepared once, then filtered, sorted and summed fast
// enough to run on every keystroke over 100,000 rows.
import type { CardTransaction } from "./bindings/CardTransaction";
import { categoryWords } from "./enrichment";
import { TextPool, dayBounds, needleIn, upsertSorted } from "./rowSearch";

export interface Row {
  tx: CardTransaction;
  /** createdAt as epoch milliseconds. */
  time: number;
  /** Months since year 0 (UTC), the monthly chart's bucket. */
  month: number;
  /**
   * The merchant's searchable text (name, category, descriptor, address), interned: a card's
   * history has 100,000 rows but a few hundred merchants, so a keystroke searches each merchant
   * once rather than every row.
   */
  place: number;
  /** The row's own searchable text: amount and id. */
  own: string;
}

/** Every distinct merchant text seen, lower case, by `Row.place`. */
const places = new TextPool();

export function prepare(tx: CardTransaction): Row {
  const time = Date.parse(tx.createdAt);
  const date = new Date(time);
  return {
    tx,
    time,
    month: date.getUTCFullYear() * 12 + date.getUTCMonth(),
    place: places.intern(
      [
        tx.counterparty?.name ?? "",
        tx.merchantName,
        tx.personalFinanceCategory ? categoryWords(tx.personalFinanceCategory) : "",
        tx.category,
        tx.descriptor,
        tx.city,
        tx.street,
        tx.country,
        tx.zip,
      ]
        .join("\u0001")
        .toLowerCase(),
    ),
    own: `${tx.amount.toFixed(2)}\u0001${tx.transactionId}`,
  };
}

/** What a row's text holds for a search: its merchant's text or its own (amount, id). */
export function haystack(row: Row): string {
  return `${places.texts[row.place]}\u0001${row.own}`;
}

export type PendingFilter = "all" | "pending" | "settled";
/** Purchases only, refunds only (a negative amount), or both. */
export type KindFilter = "all" | "purchases" | "refunds";

export interface Filter {
  text: string;
  /** `YYYY-MM-DD`, inclusive, UTC days; empty for no bound. */
  from: string;
  to: string;
  pending: PendingFilter;
  kind?: KindFilter;
}

export const emptyFilter: Filter = { text: "", from: "", to: "", pending: "all", kind: "all" };

export type SortKey = "time" | "merchant" | "category" | "city" | "amount" | "status";
export interface Sort {
  key: SortKey;
  descending: boolean;
}

export const defaultSort: Sort = { key: "time", descending: true };

export interface Totals {
  count: number;
  /** Sum per currency, largest count first. */
  byCurrency: { currency: string; amount: number; count: number }[];
  pending: number;
  refunds: number;
}

/** Purchases less refunds of one month. */
export interface MonthSum {
  amount: number;
  count: number;
}

export interface Filtered {
  rows: Row[];
  totals: Totals;
  /** Per currency, per month (months since year 0): the monthly chart of what is kept. */
  monthly: Map<string, Map<number, MonthSum>>;
}

/**
 * Keeps the order of `rows` (already sorted); sums what it keeps in the same pass. Fast enough
 * for every keystroke on 100,000 rows: the text is searched once per merchant, not per row.
 */
export function applyFilter(rows: readonly Row[], filter: Filter): Filtered {
  const { text: needle, matches: placeMatches, searchOwn } = needleIn(places, filter.text);
  const { from, to } = dayBounds(filter.from, filter.to);
  const wantPending =
    filter.pending === "pending" ? true : filter.pending === "settled" ? false : null;
  const wantRefund = filter.kind === "refunds" ? true : filter.kind === "purchases" ? false : null;
  const kept: Row[] = [];
  const sums = new Map<string, CurrencySum>();
  let lastCurrency = "";
  let lastSum: CurrencySum | undefined;
  let pending = 0;
  let refunds = 0;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index];
    if (from !== null && row.time < from) continue;
    if (to !== null && row.time > to) continue;
    const tx = row.tx;
    if (wantPending !== null && tx.pending !== wantPending) continue;
    const refund = tx.amount < 0;
    if (wantRefund !== null && refund !== wantRefund) continue;
    if (
      placeMatches !== null &&
      placeMatches[row.place] !== 1 &&
      !(searchOwn && row.own.includes(needle))
    )
      continue;
    kept.push(row);
    // Rows come in runs of one currency: look the sum up only when it changes.
    if (tx.currency !== lastCurrency || lastSum === undefined) {
      lastCurrency = tx.currency;
      lastSum = sums.get(lastCurrency);
      if (!lastSum) {
        lastSum = {
          amount: 0,
          count: 0,
          months: new Map(),
          month: Number.NaN,
          bucket: { amount: 0, count: 0 },
        };
        sums.set(lastCurrency, lastSum);
      }
    }
    lastSum.amount += tx.amount;
    lastSum.count += 1;
    // The monthly chart in the same pass; sorted by time, a row's month is mostly the last one's.
    if (row.month !== lastSum.month) {
      lastSum.month = row.month;
      let bucket = lastSum.months.get(row.month);
      if (!bucket) {
        bucket = { amount: 0, count: 0 };
        if (!Number.isNaN(row.month)) lastSum.months.set(row.month, bucket);
      }
      lastSum.bucket = bucket;
    }
    lastSum.bucket.amount += tx.amount;
    lastSum.bucket.count += 1;
    if (tx.pending) pending += 1;
    if (tx.amount < 0) refunds += 1;
  }
  const byCurrency = [...sums.entries()]
    .map(([currency, sum]) => ({
      currency,
      amount: Math.round(sum.amount * 100) / 100,
      count: sum.count,
    }))
    .sort((a, b) => b.count - a.count);
  const monthly = new Map<string, Map<number, MonthSum>>();
  for (const [currency, sum] of sums) monthly.set(currency, sum.months);
  return { rows: kept, totals: { count: kept.length, byCurrency, pending, refunds }, monthly };
}

interface CurrencySum {
  amount: number;
  count: number;
  months: Map<number, MonthSum>;
  /** The month of the last row summed, and its bucket. */
  month: number;
  bucket: MonthSum;
}

/** The months the chart spans: first and last month of all rows, filtered or not. */
export interface MonthSpan {
  first: number;
  last: number;
}

/** The first and last day (`YYYY-MM-DD`) of a month since year 0: a chart's month as a range. */
export function monthRange(month: number): { from: string; to: string } {
  const year = Math.floor(month / 12);
  const index = month - year * 12;
  const pad = (value: number) => String(value).padStart(2, "0");
  const last = new Date(Date.UTC(year, index + 1, 0)).getUTCDate();
  return {
    from: `${String(year).padStart(4, "0")}-${pad(index + 1)}-01`,
    to: `${String(year).padStart(4, "0")}-${pad(index + 1)}-${pad(last)}`,
  };
}

/** The month a range is exactly, when it is one (`2026-03-01`–`2026-03-31`); else `null`. */
export function monthOfRange(from: string, to: string): number | null {
  const month = monthOfDay(from);
  if (month === null) return null;
  const whole = monthRange(month);
  return whole.from === from && whole.to === to ? month : null;
}

/** Months since year 0 of a `YYYY-MM-DD` day; `null` when empty or not a day. */
function monthOfDay(day: string): number | null {
  const match = /^(\d{4})-(\d{2})-\d{2}$/.exec(day);
  return match ? Number(match[1]) * 12 + Number(match[2]) - 1 : null;
}

/**
 * The chart's time axis: the months of the date range `from`..`to` (`YYYY-MM-DD`, either empty
 * for no bound), an open end taking the first or last month of every row. A text or status filter
 * thus keeps the axis in place, while a date range ("Last 12 months") spans just its months.
 * `null` when there are no rows and no range.
 */
export function monthSpan(rows: readonly Row[], from = "", to = ""): MonthSpan | null {
  let first = Infinity;
  let last = -Infinity;
  for (let index = 0; index < rows.length; index++) {
    const month = rows[index].month;
    if (month < first) first = month;
    if (month > last) last = month;
  }
  const rangeFirst = monthOfDay(from);
  const rangeLast = monthOfDay(to);
  if (first === Infinity && (rangeFirst === null || rangeLast === null)) return null;
  first = rangeFirst ?? first;
  last = rangeLast ?? last;
  return first > last ? null : { first, last };
}

/** The monthly chart of a filter's answer, as `monthlySpending` draws it from rows: every month
 *  of `span` (the whole history, so filtering leaves the axis in place), else of the answer. */
export function monthlyBars(
  filtered: Filtered,
  currency: string,
  maxMonths = 36,
  span: MonthSpan | null = null,
): MonthBar[] {
  const months = filtered.monthly.get(currency);
  if (!span && (!months || months.size === 0)) return [];
  let first = span?.first ?? Infinity;
  let last = span?.last ?? -Infinity;
  if (!span && months) {
    for (const month of months.keys()) {
      if (month > last) last = month;
      if (month < first) first = month;
    }
  }
  const start = Math.max(first, last - maxMonths + 1);
  const bars: MonthBar[] = [];
  for (let month = start; month <= last; month++) {
    const sum = months?.get(month);
    bars.push({
      month,
      amount: sum ? Math.round(sum.amount * 100) / 100 : 0,
      count: sum?.count ?? 0,
    });
  }
  return bars;
}

/** What the rows of one merchant text add up to, per currency. */
interface PlaceCurrency {
  amount: number;
  count: number;
  months: Map<number, MonthSum>;
  /** Position of the first such row among the kept rows: currencies tie in that order. */
  first: number;
}

interface PlaceSums {
  pending: number;
  refunds: number;
  currencies: Map<string, PlaceCurrency>;
}

/**
 * The rows a date range and a status keep, and what the rows of each merchant text add up to.
 * A keystroke changes only the text: it then finds the merchants it matches (a few hundred
 * texts), adds up their sums, and keeps rows by a scan of one typed array, instead of looking
 * at and summing 100,000 rows.
 */
class ByPlace {
  readonly kept: Row[];
  /** `placeOf[i]` is `kept[i].place`. */
  private readonly placeOf: Int32Array;
  private readonly sums = new Map<number, PlaceSums>();

  constructor(
    readonly rows: readonly Row[],
    readonly filter: Filter,
  ) {
    this.kept = applyFilter(rows, { ...filter, text: "" }).rows;
    this.placeOf = new Int32Array(this.kept.length);
    for (let index = 0; index < this.kept.length; index++) {
      const row = this.kept[index];
      this.placeOf[index] = row.place;
      let place = this.sums.get(row.place);
      if (!place) {
        place = { pending: 0, refunds: 0, currencies: new Map() };
        this.sums.set(row.place, place);
      }
      const tx = row.tx;
      if (tx.pending) place.pending += 1;
      if (tx.amount < 0) place.refunds += 1;
      let currency = place.currencies.get(tx.currency);
      if (!currency) {
        currency = { amount: 0, count: 0, months: new Map(), first: index };
        place.currencies.set(tx.currency, currency);
      }
      currency.amount += tx.amount;
      currency.count += 1;
      if (!Number.isNaN(row.month)) {
        const bucket = currency.months.get(row.month);
        if (bucket) {
          bucket.amount += tx.amount;
          bucket.count += 1;
        } else currency.months.set(row.month, { amount: tx.amount, count: 1 });
      }
    }
  }

  /** The same answer as `applyFilter(rows, filter)` for a text no row's own digits can hold. */
  search(matches: Uint8Array | null): Filtered {
    const wanted: number[] = [];
    for (const place of this.sums.keys())
      if (matches === null || matches[place] === 1) wanted.push(place);
    let rows: Row[];
    if (wanted.length === this.sums.size) rows = this.kept;
    else if (wanted.length === 0) rows = [];
    else {
      rows = [];
      const placeOf = this.placeOf;
      const kept = this.kept;
      for (let index = 0; index < placeOf.length; index++)
        if ((matches as Uint8Array)[placeOf[index]] === 1) rows.push(kept[index]);
    }
    const currencies = new Map<string, { amount: number; count: number; first: number }>();
    const monthly = new Map<string, Map<number, MonthSum>>();
    let pending = 0;
    let refunds = 0;
    for (const id of wanted) {
      const place = this.sums.get(id) as PlaceSums;
      pending += place.pending;
      refunds += place.refunds;
      for (const [code, sum] of place.currencies) {
        const total = currencies.get(code);
        if (total) {
          total.amount += sum.amount;
          total.count += sum.count;
          total.first = Math.min(total.first, sum.first);
        } else currencies.set(code, { amount: sum.amount, count: sum.count, first: sum.first });
        let months = monthly.get(code);
        if (!months) {
          months = new Map();
          monthly.set(code, months);
        }
        for (const [month, bucket] of sum.months) {
          const into = months.get(month);
          if (into) {
            into.amount += bucket.amount;
            into.count += bucket.count;
          } else months.set(month, { amount: bucket.amount, count: bucket.count });
        }
      }
    }
    const byCurrency = [...currencies.entries()]
      .sort(([, a], [, b]) => b.count - a.count || a.first - b.first)
      .map(([currency, sum]) => ({
        currency,
        amount: Math.round(sum.amount * 100) / 100,
        count: sum.count,
      }));
    return { rows, totals: { count: rows.length, byCurrency, pending, refunds }, monthly };
  }
}

/**
 * `applyFilter` for a table whose filter changes a keystroke at a time. A text of letters is
 * answered from per-merchant sums (see `ByPlace`), worked out again only when the rows, the
 * date range or the status change. A text a row's own digits could hold (an amount, an id)
 * searches the rows, and typing on searches only what the previous keystroke kept. One per table.
 */
export function createFilter(): (rows: readonly Row[], filter: Filter) => Filtered {
  let byPlace: ByPlace | null = null;
  let last: { rows: readonly Row[]; filter: Filter; needle: string; result: Filtered } | null =
    null;
  return (rows, filter) => {
    const needle = needleIn(places, filter.text);
    if (!needle.searchOwn) {
      if (
        byPlace === null ||
        byPlace.rows !== rows ||
        byPlace.filter.from !== filter.from ||
        byPlace.filter.to !== filter.to ||
        byPlace.filter.pending !== filter.pending ||
        byPlace.filter.kind !== filter.kind
      )
        byPlace = new ByPlace(rows, { ...filter });
      last = null;
      return byPlace.search(needle.matches);
    }
    const narrower =
      last !== null &&
      last.rows === rows &&
      last.filter.from === filter.from &&
      last.filter.to === filter.to &&
      last.filter.pending === filter.pending &&
      last.filter.kind === filter.kind &&
      last.needle !== "" &&
      needle.text.includes(last.needle);
    const result =
      narrower && last ? applyFilter(last.result.rows, filter) : applyFilter(rows, filter);
    last = { rows, filter: { ...filter }, needle: needle.text, result };
    return result;
  };
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
export function monthlySpending(
  rows: readonly Row[],
  currency: string,
  maxMonths = 36,
): MonthBar[] {
  // Two passes of plain number work (the range, then the sums) beat a map per row.
  let first = Infinity;
  let last = -Infinity;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index];
    if (row.tx.currency !== currency || Number.isNaN(row.month)) continue;
    if (row.month < first) first = row.month;
    if (row.month > last) last = row.month;
  }
  if (first === Infinity) return [];
  const start = Math.max(first, last - maxMonths + 1);
  const amounts = new Float64Array(last - start + 1);
  const counts = new Uint32Array(last - start + 1);
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index];
    if (!(row.month >= start) || row.tx.currency !== currency) continue;
    amounts[row.month - start] += row.tx.amount;
    counts[row.month - start] += 1;
  }
  const bars: MonthBar[] = [];
  for (let offset = 0; offset < amounts.length; offset++) {
    bars.push({
      month: start + offset,
      amount: Math.round(amounts[offset] * 100) / 100,
      count: counts[offset],
    });
  }
  return bars;
}

/** A live arrival: a new row goes in its sorted place; a settled one replaces its pending row. */
export function upsert(rows: readonly Row[], row: Row, sort: Sort): Row[] {
  return upsertSorted(rows, row, comparator(sort));
}
