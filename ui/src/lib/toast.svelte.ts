// Success says itself in a toast (bottom left of the content, clear of the amounts at a table's
// right end; gone after a few seconds), not in a card that stays on the page: "Endpoint added",
// "Saved 12 rows", with Undo where an action can be undone.

export interface ToastAction {
  label: string;
  run: () => void | Promise<void>;
}

export interface Toast {
  id: number;
  message: string;
  /** Small text under the message (a file name, an id). */
  detail?: string;
  action?: ToastAction;
  kind: "success" | "info";
}

const SHOWN_MS = 6000;
/** With an action, long enough to reach the button. */
const SHOWN_WITH_ACTION_MS = 10_000;

export const toasts = $state({ list: [] as Toast[] });

let next = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

export function dismiss(id: number): void {
  clearTimeout(timers.get(id));
  timers.delete(id);
  toasts.list = toasts.list.filter((toast) => toast.id !== id);
}

/** Takes every toast away (at sign-out: they spoke of the session that ended). */
export function dismissAll(): void {
  for (const toast of toasts.list) dismiss(toast.id);
}

/** Shows `message`; returns its id. At most three show at once, newest last. */
export function toast(
  message: string,
  options: { detail?: string; action?: ToastAction; kind?: Toast["kind"] } = {},
): number {
  const id = next++;
  toasts.list = [...toasts.list.slice(-2), { id, message, kind: "success", ...options }];
  timers.set(
    id,
    setTimeout(() => dismiss(id), options.action ? SHOWN_WITH_ACTION_MS : SHOWN_MS),
  );
  return id;
}

/** An export written: how many rows, to which file (by name; the folder is the one chosen). */
export function toastExport(result: { rows: number; path: string }): number {
  const file = result.path.split(/[\\/]/).pop() ?? result.path;
  const rows = result.rows.toLocaleString("en-US");
  return toast(`Exported ${rows} ${result.rows === 1 ? "row" : "rows"}`, { detail: file });
}
