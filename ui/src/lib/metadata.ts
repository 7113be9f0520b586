// The subscriber's notes on an object (`metadata`), edited as rows: what a save sends (keys
// merge; a key sent with "" is removed) and what is wrong before anything is sent, by the
// service's limits.

export type Metadata = { [key in string]: string };

/** The service's limits (`protocol::rules::labels`). */
export const PAIRS_AT_MOST = 20;
export const KEY_CHARS_AT_MOST = 40;
export const VALUE_CHARS_AT_MOST = 500;

/** One row of the editor: a key set before keeps its name; a new row names its own. */
export type NoteRow = { key: string; value: string; removed: boolean; existing: boolean };

export function rowsOf(metadata: Metadata): NoteRow[] {
  return Object.entries(metadata).map(([key, value]) => ({
    key,
    value,
    removed: false,
    existing: true,
  }));
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * What to send for `rows` edited from `before`: the changed pairs, "" for a removed key, and
 * the problems (by row index) that keep it from being sent.
 */
export function notesPatch(
  before: Metadata,
  rows: NoteRow[],
): { patch: Metadata; problems: Record<number, string>; changed: boolean } {
  const patch: Metadata = {};
  const problems: Record<number, string> = {};
  const seen = new Set<string>();
  let kept = 0;
  rows.forEach((row, index) => {
    const key = row.key.trim();
    if (row.removed) {
      if (row.existing) patch[key] = "";
      return;
    }
    if (!row.existing && key === "" && row.value === "") return;
    if (key === "") problems[index] = "Name the note";
    else if ([...key].length > KEY_CHARS_AT_MOST)
      problems[index] = `A name has at most ${KEY_CHARS_AT_MOST} characters`;
    else if (CONTROL.test(key)) problems[index] = "A name has no control characters";
    else if (seen.has(key)) problems[index] = "This name is used twice";
    else if ([...row.value].length > VALUE_CHARS_AT_MOST)
      problems[index] = `A note has at most ${VALUE_CHARS_AT_MOST} characters`;
    else if (row.value === "") problems[index] = "Write the note, or remove it";
    seen.add(key);
    kept += 1;
    if (before[key] !== row.value) patch[key] = row.value;
  });
  if (kept > PAIRS_AT_MOST) problems[-1] = `At most ${PAIRS_AT_MOST} notes`;
  return { patch, problems, changed: Object.keys(patch).length > 0 };
}
