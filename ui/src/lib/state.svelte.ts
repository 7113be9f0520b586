// What the whole app shares: the status from the Rust side and the page shown.
import type { AppStatus, SignupResult } from "./api";

export type Route =
  | { name: "overview" }
  | { name: "cards" }
  | { name: "card"; cardId: number }
  | { name: "merchant"; tab?: MerchantTab }
  | { name: "lookup" }
  | { name: "accounts" }
  | { name: "identity" }
  | { name: "credentials" }
  | { name: "connect" };

/** The merchant screen's tabs: its sales across locations, or the locations. */
export type MerchantTab = "transactions" | "locations";

export const app = $state({
  status: null as AppStatus | null,
  route: { name: "overview" } as Route,
  /** The credentials of a fresh sign-up, shown once then dropped. */
  signup: null as SignupResult | null,
  /** The filter field of the top bar, for pages with a list. */
  search: "",
});

export function go(route: Route): void {
  app.route = route;
  app.search = "";
}
