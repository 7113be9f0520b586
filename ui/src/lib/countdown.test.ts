import { describe, expect, it } from "vitest";
import { clock, secondsLeft, spoken, urgency } from "./countdown";

describe("the countdown", () => {
  const now = Date.parse("2026-03-07T09:00:00Z");

  it("counts whole seconds up to the expiry, rounding a started second up", () => {
    expect(secondsLeft("2026-03-07T09:10:00Z", now)).toBe(600);
    expect(secondsLeft("2026-03-07T09:00:00.200Z", now)).toBe(1);
    expect(secondsLeft(now + 59_001, now)).toBe(60);
  });

  it("never goes below zero, and an unreadable time counts as expired", () => {
    expect(secondsLeft("2026-03-07T08:59:00Z", now)).toBe(0);
    expect(secondsLeft("not a time", now)).toBe(0);
  });

  it("reads as minutes and seconds, with hours only when there are some", () => {
    expect(clock(600)).toBe("10:00");
    expect(clock(598)).toBe("9:58");
    expect(clock(7)).toBe("0:07");
    expect(clock(0)).toBe("0:00");
    expect(clock(3723)).toBe("1:02:03");
    expect(clock(-5)).toBe("0:00");
  });

  it("turns urgent in the last minute, or the last tenth of a short span", () => {
    expect(urgency(600)).toBe("calm");
    expect(urgency(61)).toBe("calm");
    expect(urgency(60)).toBe("soon");
    expect(urgency(0)).toBe("over");
    expect(urgency(10, 30)).toBe("calm");
    expect(urgency(5, 30)).toBe("soon");
    expect(urgency(25, 200)).toBe("calm");
    expect(urgency(20, 200)).toBe("soon");
  });

  it("says the time left in words for assistive technology", () => {
    expect(spoken(598)).toBe("9 minutes 58 seconds left");
    expect(spoken(60)).toBe("1 minute left");
    expect(spoken(1)).toBe("1 second left");
    expect(spoken(0)).toBe("expired");
  });
});
