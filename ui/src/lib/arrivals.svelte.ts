// What the live transaction tables (a card's, a merchant's) share around their rows: the ids
// that just arrived, each flashing once, and how a click on a column header changes the sort.

/** How long an arrival stays marked: a little longer than the flash animation in app.css. */
const FLASH_MS = 2600;

/** Ids that just arrived live; each is forgotten once its flash has played. */
export class Arrivals {
  ids: Set<number> = $state.raw(new Set());

  flash(id: number) {
    this.ids = new Set([...this.ids, id]);
    setTimeout(() => {
      const next = new Set(this.ids);
      next.delete(id);
      this.ids = next;
    }, FLASH_MS);
  }
}

/**
 * The sort after a click on `key`'s header: the same column turns around; another starts
 * newest or largest first for dates and amounts, A to Z for words.
 */
export function nextSort<K extends string>(
  sort: { key: K; descending: boolean },
  key: K,
): { key: K; descending: boolean } {
  return sort.key === key
    ? { key, descending: !sort.descending }
    : { key, descending: key === "time" || key === "amount" };
}
