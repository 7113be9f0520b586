// Time left until something expires (a page opened in the browser, the identity questions),
// as a clock a person reads at a glance.

/** Whole seconds from `now` until `expiresAt` (an RFC 3339 time or epoch ms); never negative. */
export function secondsLeft(expiresAt: string | number, now: number): number {
  const end = typeof expiresAt === "number" ? expiresAt : Date.parse(expiresAt);
  if (Number.isNaN(end)) return 0;
  return Math.max(0, Math.ceil((end - now) / 1000));
}

/** "9:58", "0:07", "1:02:03": minutes and seconds, hours only when there are some. */
export function clock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

export type Urgency = "calm" | "soon" | "over";

/** "soon" in the last minute (or the last tenth of a short span), "over" at zero. */
export function urgency(seconds: number, totalSeconds?: number): Urgency {
  if (seconds <= 0) return "over";
  const threshold = totalSeconds && totalSeconds < 600 ? Math.max(5, totalSeconds / 10) : 60;
  return seconds <= threshold ? "soon" : "calm";
}

/** What a screen reader says, in words: "9 minutes 58 seconds left". */
export function spoken(seconds: number): string {
  if (seconds <= 0) return "expired";
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  const parts = [];
  if (minutes > 0) parts.push(`${minutes} minute${minutes === 1 ? "" : "s"}`);
  if (rest > 0 || minutes === 0) parts.push(`${rest} second${rest === 1 ? "" : "s"}`);
  return `${parts.join(" ")} left`;
}
