// What the Developers area's features share: the event types an endpoint can ask for, and how
// a time of the service reads.
import { when } from "./format";

/** The event types an endpoint can ask for: the service's catalogue, from the bindings. */
export { EVENT_TYPES } from "./bindings/EventTypes";

/** An RFC 3339 time of the service as the app writes times; "—" when absent. */
export function at(text: string | null | undefined): string {
  if (!text) return "—";
  const time = Date.parse(text);
  return Number.isNaN(time) ? text : when(time);
}

/** An endpoint's events in a few words. */
export function eventsLabel(list: string[]): string {
  return list.includes("*") ? "All events" : list.join(", ");
}
