import { describe, expect, it, vi } from "vitest";
import { Arrivals, nextSort } from "./arrivals.svelte";
import { TextPool, dayBounds, needleIn, upsertSorted } from "./rowSearch";

describe("what the live tables share", () => {
  it("flashes an arrival once, then forgets it", () => {
    vi.useFakeTimers();
    const arrivals = new Arrivals();
    arrivals.flash(7);
    expect(arrivals.ids.has(7)).toBe(true);
    vi.advanceTimersByTime(3000);
    expect(arrivals.ids.has(7)).toBe(false);
    vi.useRealTimers();
  });

  it("turns a column around, and starts dates and amounts newest or largest first", () => {
    expect(nextSort({ key: "time", descending: true }, "time")).toEqual({
      key: "time",
      descending: false,
    });
    expect(nextSort({ key: "time", descending: true }, "amount").descending).toBe(true);
    expect(nextSort({ key: "time", descending: true }, "merchant").descending).toBe(false);
  });

  it("matches a search once per distinct text", () => {
    const pool = new TextPool();
    const berlin = pool.intern("berlin");
    expect(pool.intern("berlin")).toBe(berlin);
    const needle = needleIn(pool, "  BER ");
    expect(needle.text).toBe("ber");
    expect(needle.matches?.[berlin]).toBe(1);
    expect(needleIn(pool, "12.50").searchOwn).toBe(true);
    expect(needleIn(pool, "").matches).toBeNull();
  });

  it("bounds whole UTC days, and puts an arrival in its sorted place", () => {
    const { from, to } = dayBounds("2026-01-31", "2026-01-31");
    expect(to! - from!).toBe(86_400_000 - 1);
    const row = (id: number) => ({ tx: { transactionId: id } });
    const newestFirst = (
      a: { tx: { transactionId: number } },
      b: { tx: { transactionId: number } },
    ) => b.tx.transactionId - a.tx.transactionId;
    const rows = upsertSorted([row(3), row(1)], row(2), newestFirst);
    expect(rows.map((r) => r.tx.transactionId)).toEqual([3, 2, 1]);
    expect(upsertSorted(rows, row(2), newestFirst)).toHaveLength(3);
  });
});
