// The keyboard shortcuts, in one list: the `?` sheet and the settings show it, the tooltips
// name them, and `shortcutFor` decides what a key press does.
import { MOD } from "./palette";
import { sidebar } from "./screens";

export interface Shortcut {
  keys: string[];
  what: string;
}

export const SHORTCUTS: Shortcut[] = [
  { keys: [MOD, "K"], what: "Search and commands: jump anywhere, find anything, run an action" },
  { keys: ["/"], what: "Filter the list shown (or search, where there is none)" },
  { keys: ["?"], what: "These shortcuts" },
  { keys: [MOD, "1…9"], what: `The sections: ${sidebar.map((screen) => screen.nav).join(", ")}` },
  { keys: ["↑", "↓", "Home", "End"], what: "Move in the sidebar, a table, a menu or the palette" },
  { keys: ["Enter"], what: "Open the row or item chosen" },
  { keys: ["Esc"], what: "Close a detail, a menu, the palette or this sheet" },
];

export type ShortcutAction =
  | { kind: "palette" }
  | { kind: "shortcuts" }
  | { kind: "filter" }
  | { kind: "section"; index: number };

/** Whether the key press lands in a field that takes text (where `/` and `?` are typed). */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement) return true;
  if (!(target instanceof HTMLInputElement)) return false;
  return !["checkbox", "radio", "button", "submit"].includes(target.type);
}

/** What a key press on the page asks for, if anything. */
export function shortcutFor(event: KeyboardEvent): ShortcutAction | null {
  const mod = event.ctrlKey || event.metaKey;
  if (mod && !event.altKey && event.key.toLowerCase() === "k") return { kind: "palette" };
  if (mod && !event.altKey && /^[1-9]$/.test(event.key)) {
    const index = Number(event.key) - 1;
    return index < sidebar.length ? { kind: "section", index } : null;
  }
  if (mod || event.altKey || typing(event.target)) return null;
  if (event.key === "?") return { kind: "shortcuts" };
  if (event.key === "/") return { kind: "filter" };
  return null;
}
