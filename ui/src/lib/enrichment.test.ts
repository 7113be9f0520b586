import { describe, expect, it } from "vitest";
import { brandColour, categoryWords, initials, luminance } from "./enrichment";

function channels(hex: string): [number, number, number] {
  return [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16) / 255) as [
    number,
    number,
    number,
  ];
}

describe("what the service found, as the dashboard says it", () => {
  it("gives every brand a colour white initials read on at 4.5:1 or more", () => {
    for (let index = 0; index < 2000; index++) {
      const brandId = `brd_${index.toString(16).padStart(16, "0")}`;
      const colour = brandColour(brandId);
      expect(colour).toMatch(/^#[0-9a-f]{6}$/);
      const contrast = 1.05 / (luminance(channels(colour)) + 0.05);
      expect(contrast, `${brandId} ${colour}`).toBeGreaterThanOrEqual(4.5);
    }
    expect(brandColour("brd_3c1f0e9a6b2d4c57")).toBe(brandColour("brd_3c1f0e9a6b2d4c57"));
  });

  it("says categories and names in words", () => {
    expect(categoryWords({ primary: "food_and_drink", detailed: "food_and_drink_coffee" })).toBe(
      "Food and drink · Coffee",
    );
    expect(initials("Blue Heron Coffee")).toBe("BH");
    expect(initials("Café Zoë")).toBe("CZ");
  });
});
