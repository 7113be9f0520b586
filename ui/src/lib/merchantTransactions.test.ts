import { describe, expect, it } from "vitest";
import type { Location } from "./bindings/Location";
import type { MerchantTransaction } from "./bindings/MerchantTransaction";
import * as merchantTransactions from "./merchantTransactions";

const VALENCIA = 11;
const MARKET = 12;

function sale(id: number, overrides: Partial<MerchantTransaction> = {}): MerchantTransaction {
  return {
    transactionId: id,
    amount: 10,
    currency: "USD",
    createdAt: new Date(Date.UTC(2026, 2, 10) - id * 3_600_000).toISOString(),
    pending: false,
    locationId: VALENCIA,
    street: "Valencia St",
    streetNo: "1022",
    city: "San Francisco",
    country: "USA",
    zip: "94110",
    lastFour: 4242,
    ...overrides,
  };
}

function place(
  locationId: number,
  streetNo: string,
  street: string,
  city = "San Francisco",
): Location {
  return {
    locationId,
    countryCode: "USA",
    street,
    streetNo,
    city,
    zip: "94110",
    latitude: null,
    longitude: null,
    coordinatesSource: "unknown",
    descriptor: `DINER ${locationId}`,
    createdAt: "2026-01-01T00:00:00Z",
    metadata: {},
  };
}

const marketSale = (id: number, overrides: Partial<MerchantTransaction> = {}) =>
  sale(id, {
    locationId: MARKET,
    street: "Market St",
    streetNo: "1",
    zip: "94103",
    lastFour: 17,
    ...overrides,
  });

describe("the merchant transactions model", () => {
  const rows = [
    sale(1, { amount: 12.5 }),
    marketSale(2, { amount: 30 }),
    sale(3, { pending: true, amount: 7.25 }),
    marketSale(4),
  ].map(merchantTransactions.prepareMerchantRow);

  it("filters by location and sums per location what it keeps", () => {
    const all = merchantTransactions.filterMerchantRows(
      rows,
      merchantTransactions.emptyMerchantFilter,
    );
    expect(all.count).toBe(4);
    expect(all.pending).toBe(1);
    expect(all.byCurrency).toEqual([{ currency: "USD", amount: 59.75, count: 4 }]);
    expect(all.byLocation).toEqual([
      { locationId: MARKET, currency: "USD", amount: 40, count: 2 },
      { locationId: VALENCIA, currency: "USD", amount: 19.75, count: 2 },
    ]);
    const market = merchantTransactions.filterMerchantRows(rows, {
      ...merchantTransactions.emptyMerchantFilter,
      locationId: MARKET,
    });
    expect(market.rows.map((row) => row.tx.transactionId)).toEqual([2, 4]);
    expect(market.byLocation).toHaveLength(1);
  });

  it("finds a sale by the card's last four, padded as printed, and by place", () => {
    const byCard = merchantTransactions.filterMerchantRows(rows, {
      ...merchantTransactions.emptyMerchantFilter,
      text: "0017",
    });
    expect(byCard.rows.map((row) => row.tx.transactionId)).toEqual([2, 4]);
    expect(
      merchantTransactions.filterMerchantRows(rows, {
        ...merchantTransactions.emptyMerchantFilter,
        text: "4242",
      }).count,
    ).toBe(2);
    expect(
      merchantTransactions.filterMerchantRows(rows, {
        ...merchantTransactions.emptyMerchantFilter,
        text: "market st",
      }).count,
    ).toBe(2);
    expect(
      merchantTransactions.filterMerchantRows(rows, {
        ...merchantTransactions.emptyMerchantFilter,
        text: "12.50",
      }).count,
    ).toBe(1);
    expect(
      merchantTransactions.filterMerchantRows(rows, {
        ...merchantTransactions.emptyMerchantFilter,
        text: "pending",
      }).count,
    ).toBe(1);
  });

  it("keeps whole UTC days between from and to", () => {
    const spread = [
      sale(1, { createdAt: "2026-03-01T00:00:00Z" }),
      sale(2, { createdAt: "2026-03-02T23:59:59Z" }),
      sale(3, { createdAt: "2026-03-03T00:00:00Z" }),
    ].map(merchantTransactions.prepareMerchantRow);
    const kept = merchantTransactions.filterMerchantRows(spread, {
      ...merchantTransactions.emptyMerchantFilter,
      from: "2026-03-02",
      to: "2026-03-02",
    });
    expect(kept.rows.map((row) => row.tx.transactionId)).toEqual([2]);
  });

  it("sorts by card and amount, ties newest first", () => {
    const byCard = merchantTransactions.sortMerchantRows(rows, { key: "card", descending: false });
    expect(byCard.map((row) => row.tx.transactionId)).toEqual([2, 4, 1, 3]);
    const byAmount = merchantTransactions.sortMerchantRows(rows, {
      key: "amount",
      descending: true,
    });
    expect(byAmount[0].tx.transactionId).toBe(2);
  });

  it("puts a live sale in its place and replaces a pending one when it settles", () => {
    const sorted = merchantTransactions.sortMerchantRows(
      rows,
      merchantTransactions.defaultMerchantSort,
    );
    const fresh = merchantTransactions.prepareMerchantRow(
      sale(99, { createdAt: "2026-04-01T00:00:00Z" }),
    );
    const withFresh = merchantTransactions.upsertMerchantRow(
      sorted,
      fresh,
      merchantTransactions.defaultMerchantSort,
    );
    expect(withFresh[0].tx.transactionId).toBe(99);
    expect(withFresh).toHaveLength(5);
    const settled = merchantTransactions.prepareMerchantRow({ ...rows[2].tx, pending: false });
    const after = merchantTransactions.upsertMerchantRow(
      withFresh,
      settled,
      merchantTransactions.defaultMerchantSort,
    );
    expect(after).toHaveLength(5);
    expect(after.find((row) => row.tx.transactionId === 3)?.tx.pending).toBe(false);
  });

  it("gives every location a bar, at zero without sales, with labels that tell them apart", () => {
    const totals = merchantTransactions.filterMerchantRows(
      rows,
      merchantTransactions.emptyMerchantFilter,
    ).byLocation;
    const places = [
      place(VALENCIA, "1022", "Valencia St"),
      place(MARKET, "1", "Market St"),
      place(13, "1", "Market St", "Oakland"),
    ];
    const bars = merchantTransactions.locationBars(
      totals,
      places,
      "USD",
      (amount) => `${amount.toFixed(2)} USD`,
    );
    expect(bars.map((bar) => [bar.label, bar.value])).toEqual([
      ["1022 Valencia St", 19.75],
      ["1 Market St #12", 40],
      ["1 Market St #13", 0],
    ]);
    expect(bars[2].detail).toBe("1 Market St, Oakland: 0.00 USD in 0 transactions");
    expect(bars[0].detail).toBe("1022 Valencia St, San Francisco: 19.75 USD in 2 transactions");
    expect(merchantTransactions.locationLabel(places[0])).toBe("1022 Valencia St, San Francisco");
  });
});
