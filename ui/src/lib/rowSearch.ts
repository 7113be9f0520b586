// What the two transaction tables (a card's, a merchant's) share to filter on every keystroke
// over 100,000 rows: search texts interned (many rows, few merchants or locations, so a needle
// is matched once per distinct text, not per row), the UTC day bounds of a date range, and the
// live arrival of a row into a sorted list.

/** Distinct lower-case search texts, each with a number a row keeps instead of the text. */
export class TextPool {
  readonly texts: string[] = [];
  private readonly ids = new Map<string, number>();

  intern(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.texts.length;
      this.texts.push(text);
      this.ids.set(text, id);
    }
    return id;
  }
}

/** Only amounts, card digits and ids can hold these characters alone. */
const OWN_CHARACTERS = /^[-0-9.\u0001]*$/;

/** A typed search, worked out once per keystroke. */
export interface Needle {
  /** Trimmed, lower case; empty for no search. */
  text: string;
  /** `matches[id]` is 1 when the pool's text `id` holds the needle; `null` for no search. */
  matches: Uint8Array | null;
  /** Whether a row's own text (digits: amount, id) can hold the needle at all. */
  searchOwn: boolean;
}

export function needleIn(pool: TextPool, typed: string): Needle {
  const text = typed.trim().toLowerCase();
  if (!text) return { text, matches: null, searchOwn: false };
  const matches = new Uint8Array(pool.texts.length);
  for (let id = 0; id < pool.texts.length; id++) if (pool.texts[id].includes(text)) matches[id] = 1;
  return { text, matches, searchOwn: OWN_CHARACTERS.test(text) };
}

const DAY_MS = 86_400_000;

function dayStart(text: string): number | null {
  if (!text) return null;
  const value = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(value) ? null : value;
}

/** Epoch milliseconds of `from`'s first and `to`'s last moment (UTC days, `YYYY-MM-DD`). */
export function dayBounds(from: string, to: string): { from: number | null; to: number | null } {
  const toStart = dayStart(to);
  return { from: dayStart(from), to: toStart === null ? null : toStart + DAY_MS - 1 };
}

/** A live arrival: a new row goes in its sorted place; a settled one replaces its pending row. */
export function upsertSorted<R extends { tx: { transactionId: number } }>(
  rows: readonly R[],
  row: R,
  compare: (a: R, b: R) => number,
): R[] {
  const result: R[] = [];
  let placed = false;
  for (let index = 0; index < rows.length; index++) {
    const existing = rows[index];
    if (existing.tx.transactionId === row.tx.transactionId) continue;
    if (!placed && compare(row, existing) <= 0) {
      result.push(row);
      placed = true;
    }
    result.push(existing);
  }
  if (!placed) result.push(row);
  return result;
}
