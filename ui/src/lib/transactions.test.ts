import { describe, expect, it } from "vitest";
import type { CardTransaction } from "./bindings/CardTransaction";
import {
  applyFilter,
  createFilter,
  monthlyBars,
  monthSpan,
  defaultSort,
  emptyFilter,
  monthlySpending,
  prepare,
  sortRows,
  upsert,
} from "./transactions";
import { sampleTransaction } from "./fixtures.test-helpers";

let nextId = 1;
function tx(overrides: Partial<CardTransaction>): CardTransaction {
  return sampleTransaction({ transactionId: nextId++, ...overrides });
}

describe("the transaction table's model", () => {
  const rows = sortRows(
    [
      prepare(
        tx({
          createdAt: "2026-01-15T10:00:00Z",
          amount: 25.5,
          merchantName: "Whole Foods",
          category: "5411 Grocery Stores",
        }),
      ),
      prepare(
        tx({ createdAt: "2026-02-01T00:00:00Z", amount: -5, merchantName: "Blue Bottle Coffee" }),
      ),
      prepare(
        tx({
          createdAt: "2026-02-28T23:59:59Z",
          amount: 100,
          merchantName: "Delta Air Lines",
          city: "Atlanta",
        }),
      ),
      prepare(
        tx({
          createdAt: "2026-03-07T09:05:00Z",
          amount: 3.25,
          pending: true,
          merchantName: "Shell",
          currency: "EUR",
        }),
      ),
    ],
    defaultSort,
  );

  it("sorts newest first by default and by any column on request", () => {
    expect(rows.map((row) => row.tx.merchantName)).toEqual([
      "Shell",
      "Delta Air Lines",
      "Blue Bottle Coffee",
      "Whole Foods",
    ]);
    expect(sortRows(rows, { key: "amount", descending: true }).map((row) => row.tx.amount)).toEqual(
      [100, 25.5, 3.25, -5],
    );
    expect(sortRows(rows, { key: "merchant", descending: false })[0].tx.merchantName).toBe(
      "Blue Bottle Coffee",
    );
  });

  it("filters by text, date range (whole UTC days) and pending, and sums what it keeps", () => {
    const byText = applyFilter(rows, { ...emptyFilter, text: "  ATLANTA " });
    expect(byText.rows.map((row) => row.tx.merchantName)).toEqual(["Delta Air Lines"]);

    expect(
      applyFilter(rows, { ...emptyFilter, text: "25.50" }).rows.map((row) => row.tx.merchantName),
    ).toEqual(["Whole Foods"]);
    const id = rows[0].tx.transactionId;
    expect(
      applyFilter(rows, { ...emptyFilter, text: String(id) }).rows.map(
        (row) => row.tx.transactionId,
      ),
    ).toContain(id);
    expect(applyFilter(rows, { ...emptyFilter, text: "5814" }).totals.count).toBe(3);
    expect(
      applyFilter(rows, { ...emptyFilter, text: "sq *blue" }).rows.map(
        (row) => row.tx.merchantName,
      ),
    ).toEqual(expect.arrayContaining(["Blue Bottle Coffee"]));
    expect(applyFilter(rows, { ...emptyFilter, text: "no such shop" }).totals.count).toBe(0);

    const february = applyFilter(rows, { ...emptyFilter, from: "2026-02-01", to: "2026-02-28" });
    expect(february.rows.map((row) => row.tx.amount)).toEqual([100, -5]);
    expect(february.totals.byCurrency).toEqual([{ currency: "USD", amount: 95, count: 2 }]);
    expect(february.totals.refunds).toBe(1);

    const pending = applyFilter(rows, { ...emptyFilter, pending: "pending" });
    expect(pending.rows.map((row) => row.tx.merchantName)).toEqual(["Shell"]);
    expect(applyFilter(rows, { ...emptyFilter, pending: "settled" }).totals.count).toBe(3);

    const all = applyFilter(rows, emptyFilter);
    expect(all.totals.byCurrency.map((sum) => sum.currency)).toEqual(["USD", "EUR"]);
    expect(all.totals.pending).toBe(1);
  });

  it("gives the same answer typing on, deleting and changing other filters as a fresh filter", () => {
    const filter = createFilter();
    const steps = [
      { ...emptyFilter, text: "b" },
      { ...emptyFilter, text: "bl" },
      { ...emptyFilter, text: "blue" },
      { ...emptyFilter, text: "bl" },
      { ...emptyFilter, text: "blue", pending: "settled" as const },
      { ...emptyFilter, text: "blue b", pending: "settled" as const },
      { ...emptyFilter, text: "" },
      { ...emptyFilter, text: "1" },
      { ...emptyFilter, text: "10" },
    ];
    for (const step of steps) {
      const fresh = applyFilter(rows, step);
      const remembered = filter(rows, step);
      expect(remembered.rows.map((row) => row.tx.transactionId)).toEqual(
        fresh.rows.map((row) => row.tx.transactionId),
      );
      expect(remembered.totals).toEqual(fresh.totals);
    }
    const arrival = upsert(
      rows,
      prepare(tx({ createdAt: "2026-03-09T00:00:00Z", merchantName: "Blue Note" })),
      defaultSort,
    );
    expect(filter(arrival, { ...emptyFilter, text: "10" }).totals.count).toBe(
      applyFilter(arrival, { ...emptyFilter, text: "10" }).totals.count,
    );
  });

  it("buckets spending by month with empty months as zero", () => {
    const bars = monthlySpending(rows, "USD");
    expect(bars.map((bar) => [bar.amount, bar.count])).toEqual([
      [25.5, 1],
      [95, 2],
    ]);
    expect(monthlyBars(applyFilter(rows, emptyFilter), "USD")).toEqual(bars);
    expect(
      monthlyBars(
        applyFilter(sortRows(rows, { key: "amount", descending: false }), emptyFilter),
        "USD",
      ),
    ).toEqual(bars);
    expect(
      monthlyBars(applyFilter(rows, { ...emptyFilter, text: "whole" }), "USD").map(
        (bar) => bar.amount,
      ),
    ).toEqual([25.5]);
    expect(monthlyBars(applyFilter(rows, emptyFilter), "GBP")).toEqual([]);
    const sparse = monthlySpending(
      [
        prepare(tx({ createdAt: "2025-11-03T00:00:00Z", amount: 1 })),
        prepare(tx({ createdAt: "2026-02-03T00:00:00Z", amount: 2 })),
      ],
      "USD",
    );
    expect(sparse.map((bar) => bar.amount)).toEqual([1, 0, 0, 2]);
    expect(
      monthlyBars(
        applyFilter(
          [
            prepare(tx({ createdAt: "2026-02-03T00:00:00Z", amount: 2 })),
            prepare(tx({ createdAt: "2025-11-03T00:00:00Z", amount: 1 })),
          ],
          emptyFilter,
        ),
        "USD",
      ).map((bar) => bar.amount),
    ).toEqual([1, 0, 0, 2]);
  });

  it("spans the chosen date range's months, else the whole history", () => {
    const history = [
      prepare(tx({ createdAt: "2023-12-03T00:00:00Z", amount: 1 })),
      prepare(tx({ createdAt: "2026-11-03T00:00:00Z", amount: 2 })),
    ];
    const month = (year: number, index: number) => year * 12 + index - 1;
    expect(monthSpan(history)).toEqual({ first: month(2023, 12), last: month(2026, 11) });
    expect(monthSpan(history, "2025-12-01", "2026-11-24")).toEqual({
      first: month(2025, 12),
      last: month(2026, 11),
    });
    expect(monthSpan(history, "2026-01-10", "")).toEqual({
      first: month(2026, 1),
      last: month(2026, 11),
    });
    expect(monthSpan([], "2026-01-10", "2026-03-01")).toEqual({
      first: month(2026, 1),
      last: month(2026, 3),
    });
    expect(monthSpan([])).toBeNull();
    const filtered = applyFilter(history, {
      ...emptyFilter,
      from: "2025-12-01",
      to: "2026-11-24",
    });
    expect(
      monthlyBars(filtered, "USD", 36, monthSpan(history, "2025-12-01", "2026-11-24")),
    ).toHaveLength(12);
  });

  it("answers a typed text from per-merchant sums exactly as a search of every row", () => {
    // Many rows, few merchants, three currencies, pending rows and refunds over three years.
    const names = ["Blue Bottle", "Bluebird Books", "Delta", "Whole Foods", "Shell", "Lyft"];
    const currencies = ["USD", "EUR", "GBP"];
    const many = sortRows(
      Array.from({ length: 3000 }, (_, index) =>
        prepare(
          tx({
            createdAt: new Date(Date.UTC(2024, 0, 1) + index * 31_000_000).toISOString(),
            amount: index % 17 === 0 ? -((index % 50) + 0.25) : (index % 311) / 4,
            currency: currencies[index % 7 === 0 ? 1 + (index % 2) : 0],
            merchantName: `${names[index % names.length]} ${index % 40}`,
            pending: index % 23 === 0,
          }),
        ),
      ),
      defaultSort,
    );
    const filter = createFilter();
    const texts = ["", "b", "bl", "blue", "blue b", "blueb", "d", "delta 3", "zzz", "1", "12", "o"];
    for (const range of [
      { from: "", to: "", pending: "all" as const },
      { from: "2024-06-01", to: "2025-05-31", pending: "settled" as const },
      { from: "", to: "", pending: "pending" as const },
    ])
      for (const text of texts) {
        const step = { ...emptyFilter, ...range, text };
        const fresh = applyFilter(many, step);
        const answer = filter(many, step);
        expect(answer.rows.map((row) => row.tx.transactionId)).toEqual(
          fresh.rows.map((row) => row.tx.transactionId),
        );
        expect(answer.totals).toEqual(fresh.totals);
        for (const currency of currencies)
          expect(monthlyBars(answer, currency)).toEqual(monthlyBars(fresh, currency));
      }
  });

  it("puts a live arrival in its sorted place and replaces a row that settled", () => {
    const arrival = prepare(
      tx({ createdAt: "2026-03-08T12:00:00Z", merchantName: "Live Cafe", pending: true }),
    );
    const withArrival = upsert(rows, arrival, defaultSort);
    expect(withArrival[0].tx.merchantName).toBe("Live Cafe");
    expect(withArrival).toHaveLength(rows.length + 1);
    const settled = prepare({ ...arrival.tx, pending: false });
    const afterSettling = upsert(withArrival, settled, defaultSort);
    expect(afterSettling).toHaveLength(rows.length + 1);
    expect(afterSettling[0].tx.pending).toBe(false);
  });
});

describe("refunds and months as filters", () => {
  it("keeps purchases or refunds only", async () => {
    const { applyFilter, emptyFilter, prepare } = await import("./transactions");
    const { sampleTransaction } = await import("./fixtures.test-helpers");
    const rows = [
      prepare(sampleTransaction({ transactionId: 1, amount: 12.5 })),
      prepare(sampleTransaction({ transactionId: 2, amount: -3 })),
    ];
    expect(
      applyFilter(rows, { ...emptyFilter, kind: "refunds" }).rows.map(
        (row) => row.tx.transactionId,
      ),
    ).toEqual([2]);
    expect(
      applyFilter(rows, { ...emptyFilter, kind: "purchases" }).rows.map(
        (row) => row.tx.transactionId,
      ),
    ).toEqual([1]);
    expect(applyFilter(rows, emptyFilter).rows).toHaveLength(2);
  });

  it("turns a chart's month into a date range and back", async () => {
    const { monthRange, monthOfRange } = await import("./transactions");
    const february = 2024 * 12 + 1;
    expect(monthRange(february)).toEqual({ from: "2024-02-01", to: "2024-02-29" });
    expect(monthOfRange("2024-02-01", "2024-02-29")).toBe(february);
    expect(monthOfRange("2024-02-01", "2024-02-28")).toBeNull();
    expect(monthOfRange("", "")).toBeNull();
  });
});
