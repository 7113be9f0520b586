// What the Developers area's features share: the event types an endpoint can ask for, and how
// a time of the service reads.
import { exactTime } from "./format";

/** The event types an endpoint can ask for: the service's catalogue, from the bindings. */
export { EVENT_TYPES } from "./bindings/EventTypes";

/** An RFC 3339 time of the service, to the second ("7 Mar 2026, 09:05:12"); "—" when absent. */
export function at(text: string | null | undefined): string {
  if (!text) return "—";
  const time = Date.parse(text);
  return Number.isNaN(time) ? text : exactTime(time);
}

/** How the endpoint that forwards the embedded sandbox's events to this computer is told
 *  apart (crates/dashboard's `attention::FORWARD_DESCRIPTION` says the same). */
export const FORWARD_DESCRIPTION = "Forwarded to this computer";

/** How the queue of an endpoint reads beside its newest attempts, without contradicting
 *  them: a delivery counted as waiting while its newest attempt is listed as delivered (the
 *  two were read a moment apart) is not said to wait. */
export function queueLine(
  queue: { queueLength: number; nextAttemptAt: string | null; lastError: string | null },
  deliveries: readonly { eventId: string; status: string; nextAttemptAt?: string }[],
): { waiting: number; text: string } {
  // The newest attempt of each event (the list is newest first).
  const newest = new Map<string, { status: string; nextAttemptAt?: string }>();
  for (const delivery of deliveries)
    if (!newest.has(delivery.eventId)) newest.set(delivery.eventId, delivery);
  const retrying = [...newest.values()].filter((attempt) => attempt.nextAttemptAt).length;
  const allDelivered =
    newest.size > 0 && [...newest.values()].every((attempt) => attempt.status === "delivered");
  const waiting = allDelivered ? 0 : Math.max(queue.queueLength, retrying);
  if (waiting === 0)
    return {
      waiting,
      text: newest.size === 0 ? "Nothing sent yet" : "Every event delivered, nothing waiting",
    };
  return {
    waiting,
    text: `${waiting} ${waiting === 1 ? "delivery" : "deliveries"} waiting${queue.nextAttemptAt ? `, next try ${at(queue.nextAttemptAt)}` : ""}`,
  };
}

/** An endpoint's events in a few words. */
export function eventsLabel(list: string[]): string {
  return list.includes("*") ? "All events" : list.join(", ");
}
