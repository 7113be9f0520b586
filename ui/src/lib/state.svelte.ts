// What the whole app shares: the status from the Rust side and the page shown.
import { api, type AppStatus, type SignupResult } from "./api";
import { screenKey } from "./screens";

/** A screen, and the item it opens on when asked for one (a link, the palette, a notification). */
export type Route =
  | { name: "overview" }
  | { name: "cards"; enroll?: boolean }
  | { name: "card"; cardId: number; transactionId?: number }
  | { name: "merchant"; tab?: MerchantTab; locationId?: number; adding?: boolean }
  | { name: "lookup" }
  | { name: "accounts"; accountId?: number }
  | { name: "identity"; personId?: number }
  | { name: "user"; clientUserId: string }
  | {
      name: "developers";
      tab?: DevelopersTab;
      webhookId?: number;
      eventId?: string;
      requestId?: string;
      /** An id for the inspector. */
      inspect?: string;
    }
  | { name: "credentials" }
  | { name: "settings" }
  | { name: "connect" };

/** The Developers area's tabs. */
export type DevelopersTab =
  | "endpoints"
  | "deliveries"
  | "events"
  | "requests"
  | "inspector"
  | "shell"
  | "versions"
  | "sandbox";

/** The merchant screen's tabs: its sales across locations, or the locations. */
export type MerchantTab = "transactions" | "locations";

export const app = $state({
  status: null as AppStatus | null,
  route: { name: "overview" } as Route,
  /** The credentials of a fresh sign-up, shown once then dropped. */
  signup: null as SignupResult | null,
  /** The page's own title when it names what it shows ("Visa •••• 4242"), else the screen's. */
  title: null as string | null,
  /** The command palette and the keyboard shortcuts sheet, open or not. */
  palette: false,
  shortcuts: false,
  /** The identity screen handed to the person verifying themselves at this computer: while
   *  set, the app shows only their steps (no sidebar, bar, palette, shortcuts or links). */
  handedTo: null as { personId: number; firstName: string } | null,
});

/** Shows `route`; while signed in the app keeps it, to reopen it after the next sign-in. */
export function go(route: Route, options: { remember?: boolean } = {}): void {
  if (route.name !== app.route.name || JSON.stringify(route) !== JSON.stringify(app.route))
    app.title = null;
  app.route = route;
  const key = screenKey(route);
  if ((options.remember ?? true) && key && app.status?.session)
    void api.rememberScreen(key).catch(() => undefined);
}
