import { describe, expect, it } from "vitest";
import { niceTicks } from "./chartScale";

describe("chart ticks", () => {
  it("are round numbers from zero past the largest value", () => {
    expect(niceTicks(0, 6119)).toEqual([0, 2000, 4000, 6000, 8000]);
    expect(niceTicks(0, 420)).toEqual([0, 200, 400, 600]);
    expect(niceTicks(0, 9.5)).toEqual([0, 2.5, 5, 7.5, 10]);
  });

  it("take in negative values (refunds)", () => {
    expect(niceTicks(-150, 900)).toEqual([-500, 0, 500, 1000]);
  });

  it("have a span when every value is zero", () => {
    expect(niceTicks(0, 0)).toEqual([0, 1]);
  });
});
