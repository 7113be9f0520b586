// How the dashboard says what the service found about a transaction: the counterparty's mark,
// the category and channel in words, how sure the match is.
import type { Channel } from "./bindings/Channel";
import type { Confidence } from "./bindings/Confidence";
import type { Frequency } from "./bindings/Frequency";
import type { PersonalFinanceCategory } from "./bindings/PersonalFinanceCategory";
import type { StreamStatus } from "./bindings/StreamStatus";

function sentence(snake: string): string {
  const words = snake.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `food_and_drink` / `food_and_drink_coffee` -> `Food and drink · Coffee`. */
export function categoryWords(category: PersonalFinanceCategory): string {
  const detailed = category.detailed.startsWith(`${category.primary}_`)
    ? category.detailed.slice(category.primary.length + 1)
    : category.detailed;
  return `${sentence(category.primary)} · ${sentence(detailed)}`;
}

const BANDS: Record<Confidence, string> = {
  very_high: "Very high",
  high: "High",
  medium: "Medium",
  low: "Low",
};

/** The match's band as words, with its score. */
export function matchWords(confidence: Confidence, score: number): string {
  return `${BANDS[confidence]} (${score} of 100)`;
}

const CHANNELS: Record<Channel, string> = {
  in_store: "In store",
  online: "Online",
  other: "Other (bills, transfers)",
};

export function channelWords(channel: Channel): string {
  return CHANNELS[channel];
}

const FREQUENCIES: Record<Frequency, string> = {
  weekly: "Weekly",
  biweekly: "Every two weeks",
  semi_monthly: "Twice a month",
  monthly: "Monthly",
  quarterly: "Quarterly",
  annually: "Yearly",
};

export function frequencyWords(frequency: Frequency): string {
  return FREQUENCIES[frequency];
}

const STATUSES: Record<StreamStatus, string> = {
  early_detection: "New",
  mature: "Regular",
  tombstoned: "Stopped",
};

export function streamStatusWords(status: StreamStatus): string {
  return STATUSES[status];
}

/** Up to two initials of a name, for its mark. */
export function initials(name: string): string {
  const words = name
    .normalize("NFD")
    .replace(/[^\p{L}\p{N} ]/gu, " ")
    .split(/\s+/)
    .filter(Boolean);
  return words
    .slice(0, 2)
    .map((word) => word.charAt(0).toUpperCase())
    .join("");
}

/** A hue of the brand's own, from its id: the same brand has the same mark everywhere. */
export function brandHue(brandId: string): number {
  let hash = 0;
  for (const character of brandId) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
  return hash % 360;
}

/** sRGB channels (0 to 1) of `hsl(hue, saturation, lightness)` (both shares 0 to 1). */
function hslChannels(hue: number, saturation: number, lightness: number): [number, number, number] {
  const chroma = (1 - Math.abs(2 * lightness - 1)) * saturation;
  const part = chroma * (1 - Math.abs(((hue / 60) % 2) - 1));
  const base = lightness - chroma / 2;
  const sector = Math.floor(hue / 60) % 6;
  const [r, g, b] = [
    [chroma, part, 0],
    [part, chroma, 0],
    [0, chroma, part],
    [0, part, chroma],
    [part, 0, chroma],
    [chroma, 0, part],
  ][sector];
  return [r + base, g + base, b + base];
}

/** WCAG relative luminance of sRGB channels. */
export function luminance([r, g, b]: [number, number, number]): number {
  const linear = (value: number) =>
    value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/**
 * The brand's colour for its mark: its hue, as light as white text on it allows at 4.8:1 (a
 * yellow or green hue is lighter than a blue one at the same HSL lightness, so each hue finds
 * its own).
 */
export function brandColour(brandId: string): string {
  const hue = brandHue(brandId);
  let lightness = 0.4;
  let channels = hslChannels(hue, 0.6, lightness);
  while (1.05 / (luminance(channels) + 0.05) < 4.8 && lightness > 0.1) {
    lightness -= 0.01;
    channels = hslChannels(hue, 0.6, lightness);
  }
  const hex = channels.map((value) =>
    Math.round(Math.min(1, Math.max(0, value)) * 255)
      .toString(16)
      .padStart(2, "0"),
  );
  return `#${hex.join("")}`;
}
