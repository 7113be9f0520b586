// What the Developers area's features share: the event types an endpoint can ask for, and how
// a time of the service reads.
import { when } from "./format";

/** The event types an endpoint can ask for (the service's list). */
export const EVENT_TYPES = [
  "card.enrolled",
  "transaction.created",
  "transaction.updated",
  "merchant.location.created",
  "account.linked",
  "account.failed",
  "person.verified",
  "person.locked",
  "webhook.test",
];

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
