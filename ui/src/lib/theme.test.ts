// The theme's colours as app.css sets them, checked in both themes: text at 4.5:1 (WCAG 1.4.3),
// field edges and focus rings at 3:1 against what is around them (1.4.11), placeholders plainly
// lighter than what is typed.
import { describe, expect, it } from "vitest";
import css from "../app.css?raw";

function tokens(block: string): Record<string, string> {
  return Object.fromEntries(
    [...block.matchAll(/--([a-z0-9-]+):\s*(#[0-9a-f]{6})\s*;/gi)].map(([, name, value]) => [
      name,
      value,
    ]),
  );
}

const light = tokens(
  css.slice(css.indexOf(":root {"), css.indexOf("@media (prefers-color-scheme: dark)")),
);
const dark = {
  ...light,
  ...tokens(css.slice(css.indexOf("@media (prefers-color-scheme: dark)"), css.indexOf("* {"))),
};

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const value = parseInt(hex.slice(at, at + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high + 0.05) / (low + 0.05);
}

describe.each([
  ["light", light],
  ["dark", dark],
])("the %s theme", (_, theme) => {
  it("draws field edges at 3:1 or more on every surface", () => {
    for (const ground of ["surface", "surface-2", "bg"])
      expect(contrast(theme["control-border"], theme[ground]), ground).toBeGreaterThanOrEqual(3);
  });

  it("draws focus rings at 3:1 or more", () => {
    for (const ground of ["surface", "surface-2", "bg"])
      expect(contrast(theme["accent-text"], theme[ground]), ground).toBeGreaterThanOrEqual(3);
  });

  it("writes text at 4.5:1 or more", () => {
    for (const [fore, ground] of [
      ["text", "surface"],
      ["muted", "surface"],
      ["muted", "surface-2"],
      ["accent-text", "surface"],
      ["accent-text", "accent-soft"],
      ["good", "good-soft"],
      ["bad", "bad-soft"],
      ["warn", "warn-soft"],
      // A primary button's label, and the same under the pointer.
      ["on-accent", "accent"],
      ["on-accent", "accent-strong"],
      // A confirmation's danger button ("Remove for good", "Restore").
      ["on-bad", "bad"],
    ])
      expect(contrast(theme[fore], theme[ground]), `${fore} on ${ground}`).toBeGreaterThanOrEqual(
        4.5,
      );
  });

  it("keeps placeholders readable yet apart from values", () => {
    expect(contrast(theme.placeholder, theme.surface)).toBeGreaterThanOrEqual(3);
    expect(
      contrast(theme.text, theme.surface) / contrast(theme.placeholder, theme.surface),
    ).toBeGreaterThan(2.5);
  });
});
