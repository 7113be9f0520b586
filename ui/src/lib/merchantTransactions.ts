// The merchant transactions table's model: one table across every location, filtered by
// location, date and text on each keystroke, with totals per location for the chart.
import type { Location } from "./bindings/Location";
import type { MerchantTransaction } from "./bindings/MerchantTransaction";
import { lastFour } from "./format";
import { TextPool, dayBounds, needleIn, upsertSorted } from "./rowSearch";

export interface MerchantRow {
  tx: MerchantTransaction;
  /** createdAt as epoch milliseconds. */
  time: number;
  /** The card's last four as printed (`0042`). */
  card: string;
  /**
   * The searchable words, interned: the location's address, and the currency with the status.
   * A merchant has many sales but few locations, so a keystroke searches each text once.
   */
  place: number;
  kind: number;
  /** The row's own searchable digits: the card's last four, amount and id. */
  own: string;
}

/** Every distinct text seen, lower case, by `MerchantRow.place` and `.kind`. */
const texts = new TextPool();

export function prepareMerchantRow(tx: MerchantTransaction): MerchantRow {
  const card = lastFour(tx.lastFour);
  return {
    tx,
    time: Date.parse(tx.createdAt),
    card,
    place: texts.intern(
      [`${tx.streetNo} ${tx.street}`, tx.city, tx.zip, tx.country].join("\u0001").toLowerCase(),
    ),
    kind: texts.intern(`${tx.currency}\u0001${tx.pending ? "pending" : "settled"}`.toLowerCase()),
    own: `${card}\u0001${tx.amount.toFixed(2)}\u0001${tx.transactionId}`,
  };
}

/** "1022 Valencia St, San Francisco": how a location reads in lists, filters and the chart. */
export function locationLabel(location: Pick<Location, "streetNo" | "street" | "city">): string {
  const street = [location.streetNo, location.street].filter(Boolean).join(" ");
  return [street, location.city].filter(Boolean).join(", ");
}

export interface MerchantFilter {
  text: string;
  /** `YYYY-MM-DD`, inclusive, UTC days; empty for no bound. */
  from: string;
  to: string;
  /** `null`: every location. */
  locationId: number | null;
}

export const emptyMerchantFilter: MerchantFilter = { text: "", from: "", to: "", locationId: null };

export interface LocationTotal {
  locationId: number;
  currency: string;
  amount: number;
  count: number;
}

export interface MerchantFiltered {
  rows: MerchantRow[];
  count: number;
  pending: number;
  /** Sum per currency, largest count first. */
  byCurrency: { currency: string; amount: number; count: number }[];
  /** Sum per location and currency of what is shown, largest amount first. */
  byLocation: LocationTotal[];
}

const cents = (amount: number) => Math.round(amount * 100) / 100;

/** Keeps the order of `rows` (already sorted); sums what it keeps in the same pass. */
export function filterMerchantRows(
  rows: readonly MerchantRow[],
  filter: MerchantFilter,
): MerchantFiltered {
  const { text: needle, matches, searchOwn } = needleIn(texts, filter.text);
  const { from, to } = dayBounds(filter.from, filter.to);
  const kept: MerchantRow[] = [];
  const currencies = new Map<string, { amount: number; count: number }>();
  const locations = new Map<string, LocationTotal>();
  let pending = 0;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index];
    const tx = row.tx;
    if (filter.locationId !== null && tx.locationId !== filter.locationId) continue;
    if (from !== null && row.time < from) continue;
    if (to !== null && row.time > to) continue;
    if (
      matches !== null &&
      matches[row.place] !== 1 &&
      matches[row.kind] !== 1 &&
      !(searchOwn && row.own.includes(needle))
    ) {
      continue;
    }
    kept.push(row);
    let sum = currencies.get(tx.currency);
    if (!sum) {
      sum = { amount: 0, count: 0 };
      currencies.set(tx.currency, sum);
    }
    sum.amount += tx.amount;
    sum.count += 1;
    const key = `${tx.locationId}\u0001${tx.currency}`;
    let place = locations.get(key);
    if (!place) {
      place = { locationId: tx.locationId, currency: tx.currency, amount: 0, count: 0 };
      locations.set(key, place);
    }
    place.amount += tx.amount;
    place.count += 1;
    if (tx.pending) pending += 1;
  }
  const byCurrency = [...currencies.entries()]
    .map(([currency, sum]) => ({ currency, amount: cents(sum.amount), count: sum.count }))
    .sort((a, b) => b.count - a.count);
  const byLocation = [...locations.values()]
    .map((place) => ({ ...place, amount: cents(place.amount) }))
    .sort((a, b) => b.amount - a.amount || a.locationId - b.locationId);
  return { rows: kept, count: kept.length, pending, byCurrency, byLocation };
}

export type MerchantSortKey = "time" | "location" | "card" | "status" | "amount";
export interface MerchantSort {
  key: MerchantSortKey;
  descending: boolean;
}

export const defaultMerchantSort: MerchantSort = { key: "time", descending: true };

const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });

export function merchantComparator(sort: MerchantSort): (a: MerchantRow, b: MerchantRow) => number {
  const direction = sort.descending ? -1 : 1;
  const compare: (a: MerchantRow, b: MerchantRow) => number = (() => {
    switch (sort.key) {
      case "time":
        return (a: MerchantRow, b: MerchantRow) => a.time - b.time;
      case "amount":
        return (a: MerchantRow, b: MerchantRow) => a.tx.amount - b.tx.amount;
      case "location":
        return (a: MerchantRow, b: MerchantRow) =>
          collator.compare(
            `${a.tx.street} ${a.tx.streetNo} ${a.tx.city}`,
            `${b.tx.street} ${b.tx.streetNo} ${b.tx.city}`,
          );
      case "card":
        return (a: MerchantRow, b: MerchantRow) => a.card.localeCompare(b.card);
      case "status":
        return (a: MerchantRow, b: MerchantRow) => Number(a.tx.pending) - Number(b.tx.pending);
    }
  })();
  // Ties keep the newest first, whatever the column.
  return (a, b) => compare(a, b) * direction || b.time - a.time;
}

export function sortMerchantRows(rows: readonly MerchantRow[], sort: MerchantSort): MerchantRow[] {
  return [...rows].sort(merchantComparator(sort));
}

/** A live arrival: a new row goes in its sorted place; a settled one replaces its pending row. */
export function upsertMerchantRow(
  rows: readonly MerchantRow[],
  row: MerchantRow,
  sort: MerchantSort,
): MerchantRow[] {
  return upsertSorted(rows, row, merchantComparator(sort));
}

export interface LocationBar {
  locationId: number;
  label: string;
  value: number;
  detail: string;
}

/**
 * The chart's bars: one per location in `currency`, every location of the merchant (those
 * without a sale in what is shown at zero), labels made unique when two read alike.
 */
export function locationBars(
  totals: readonly LocationTotal[],
  locations: readonly Location[],
  currency: string,
  format: (amount: number) => string,
): LocationBar[] {
  const byId = new Map(
    totals.filter((total) => total.currency === currency).map((total) => [total.locationId, total]),
  );
  const seen = new Map<string, number>();
  for (const location of locations)
    seen.set(shortLabel(location), (seen.get(shortLabel(location)) ?? 0) + 1);
  const known = new Set(locations.map((location) => location.locationId));
  const bars = locations.map((location) => {
    const total = byId.get(location.locationId);
    const short = shortLabel(location);
    const label = (seen.get(short) ?? 0) > 1 ? `${short} #${location.locationId}` : short;
    const amount = total?.amount ?? 0;
    const count = total?.count ?? 0;
    return {
      locationId: location.locationId,
      label,
      value: amount,
      detail: `${locationLabel(location)}: ${format(amount)} in ${count} transaction${count === 1 ? "" : "s"}`,
    };
  });
  // A sale at a location the list does not know yet (added elsewhere a moment ago).
  for (const total of byId.values()) {
    if (known.has(total.locationId)) continue;
    bars.push({
      locationId: total.locationId,
      label: `#${total.locationId}`,
      value: total.amount,
      detail: `Location ${total.locationId}: ${format(total.amount)} in ${total.count} transaction${total.count === 1 ? "" : "s"}`,
    });
  }
  return bars;
}

function shortLabel(location: Pick<Location, "streetNo" | "street">): string {
  return [location.streetNo, location.street].filter(Boolean).join(" ");
}
