import { describe, expect, it } from "vitest";
import { queueLine } from "./developers";

const queue = (queueLength: number, lastError: string | null = null) => ({
  queueLength,
  nextAttemptAt: null,
  lastError,
});

describe("an endpoint's queue beside its attempts", () => {
  it("never says a delivery waits beside its delivered attempt", () => {
    const delivered = [{ eventId: "evt_1", status: "delivered" }];
    expect(queueLine(queue(1), delivered)).toEqual({
      waiting: 0,
      text: "Every event delivered, nothing waiting",
    });
  });

  it("counts what waits for a retry", () => {
    const attempts = [
      { eventId: "evt_2", status: "failed", nextAttemptAt: "2026-03-16T12:00:00Z" },
      { eventId: "evt_1", status: "delivered" },
    ];
    expect(queueLine(queue(0), attempts).waiting).toBe(1);
    expect(queueLine(queue(2), attempts).text).toBe("2 deliveries waiting");
  });

  it("says when nothing was sent", () => {
    expect(queueLine(queue(0), []).text).toBe("Nothing sent yet");
  });
});
