import { describe, expect, it } from "vitest";
import { integer, money, monthLabel, plural, size, when } from "./format";

describe("number formats", () => {
  it("writes money as en-US does, with the currency after", () => {
    const reference = new Intl.NumberFormat("en-US", {
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    });
    for (const amount of [
      0, 0.004, 1, 12.5, -7.25, 999.995, 1204.1, 1234567.891, -1000000, 8164110.54,
    ]) {
      expect(money(amount, "USD")).toBe(`${reference.format(amount)} USD`);
    }
    expect(money(-0.001, "EUR")).toBe("0.00 EUR");
  });

  it("writes a stored size in bytes, then KiB and MiB to one decimal", () => {
    expect([
      size(0),
      size(812),
      size(1023),
      size(1024),
      size(14_540),
      size(1_048_575),
      size(3_250_000),
      size(5 * 1024 ** 3),
    ]).toEqual(["0 B", "812 B", "1,023 B", "1.0 KiB", "14.2 KiB", "1.0 MiB", "3.1 MiB", "5.0 GiB"]);
  });

  it("groups integers by thousands", () => {
    expect([
      integer(0),
      integer(999),
      integer(1000),
      integer(100000),
      integer(-12345),
      integer(2.6),
    ]).toEqual(["0", "999", "1,000", "100,000", "-12,345", "3"]);
  });

  it("counts a noun, singular only for one", () => {
    expect([
      plural(0, "refund"),
      plural(1, "refund"),
      plural(2, "refund"),
      plural(1204, "sale"),
      plural(1, "delivery", "deliveries"),
      plural(3, "delivery", "deliveries"),
    ]).toEqual(["0 refunds", "1 refund", "2 refunds", "1,204 sales", "1 delivery", "3 deliveries"]);
  });

  it("writes a moment the same every time", () => {
    const moment = Date.UTC(2026, 2, 7, 9, 5);
    expect(when(moment)).toBe(when(moment));
    expect(when(moment)).toMatch(/2026/);
    expect(when(new Date(2026, 8, 6, 7, 4).getTime())).toBe("6 Sep 2026, 07:04");
  });

  it("names months", () => {
    expect(monthLabel(2026 * 12 + 2)).toBe("Mar '26");
    expect(monthLabel(2026 * 12 + 2)).toBe("Mar '26");
  });
});

describe("fromNow", () => {
  it("says how far ahead or behind a time is", async () => {
    const { fromNow } = await import("./format");
    const now = Date.UTC(2026, 2, 16, 12);
    expect(fromNow(now + 20 * 3600_000, now)).toBe("in 20 h");
    expect(fromNow(now + 4 * 60_000, now)).toBe("in 4 min");
    expect(fromNow(now + 30_000, now)).toBe("in less than a minute");
    expect(fromNow(now + 3 * 86_400_000, now)).toBe("in 3 days");
    expect(fromNow(now - 3 * 3600_000, now)).toBe("3 h ago");
  });
});
