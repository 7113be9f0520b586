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
