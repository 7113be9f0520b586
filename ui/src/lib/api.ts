// The one typed wrapper around the app's commands: components call these, never `invoke`.
import { Channel, invoke } from "@tauri-apps/api/core";

import type { AppStatus } from "./bindings/AppStatus";
import type { Batch } from "./bindings/Batch";
import type { CardRecord } from "./bindings/CardRecord";
import type { CardTransaction } from "./bindings/CardTransaction";
import type { CommandError } from "./bindings/CommandError";
import type { ConnectionInfo } from "./bindings/ConnectionInfo";
import type { ConnectionTarget } from "./bindings/ConnectionTarget";
import type { EnrollCardRequest } from "./bindings/EnrollCardRequest";
import type { EnrollCardResponse } from "./bindings/EnrollCardResponse";
import type { ExportResult } from "./bindings/ExportResult";
import type { LiveEvent } from "./bindings/LiveEvent";
import type { LoginInput } from "./bindings/LoginInput";
import type { RotateResult } from "./bindings/RotateResult";
import type { EnrichedFile } from "./bindings/EnrichedFile";
import type { RecurringStream } from "./bindings/RecurringStream";
import type { SandboxCard } from "./bindings/SandboxCard";
import type { SessionInfo } from "./bindings/SessionInfo";
import type { SignupResult } from "./bindings/SignupResult";
import type { Country } from "./bindings/Country";
import type { CreateLocationResponse } from "./bindings/CreateLocationResponse";
import type { DiscoveredMerchant } from "./bindings/DiscoveredMerchant";
import type { EnrollMerchantRequest } from "./bindings/EnrollMerchantRequest";
import type { FieldError } from "./bindings/FieldError";
import type { Location } from "./bindings/Location";
import type { LocationInput } from "./bindings/LocationInput";
import type { Lookup } from "./bindings/Lookup";
import type { LookupQuery } from "./bindings/LookupQuery";
import type { Merchant } from "./bindings/Merchant";
import type { MerchantCategory } from "./bindings/MerchantCategory";
import type { MerchantTransaction } from "./bindings/MerchantTransaction";
import type { SandboxTransactionRequest } from "./bindings/SandboxTransactionRequest";
import type { SandboxTransactionResponse } from "./bindings/SandboxTransactionResponse";
import type { NotificationSettings } from "./bindings/NotificationSettings";
import type { MerchantSales } from "./bindings/MerchantSales";
import type { SalesQuery } from "./bindings/SalesQuery";
import type { StatementDescriptor } from "./bindings/StatementDescriptor";
import type { PaletteIndex } from "./bindings/PaletteIndex";

/** One page of a card's transactions while they load. */
export type TransactionBatch = Batch<CardTransaction>;
/** What a card's real-time stream reports. */
export type CardLiveEvent = LiveEvent<CardTransaction>;

/** One page of the merchant's transactions while they load. */
export type MerchantBatch = Batch<MerchantTransaction>;
/** What the merchant's real-time stream reports. */
export type MerchantLiveEvent = LiveEvent<MerchantTransaction>;

export type {
  MerchantSales,
  NotificationSettings,
  PaletteIndex,
  SalesQuery,
  StatementDescriptor,
  Country,
  CreateLocationResponse,
  DiscoveredMerchant,
  EnrollMerchantRequest,
  FieldError,
  Location,
  LocationInput,
  Lookup,
  LookupQuery,
  Merchant,
  MerchantCategory,
  MerchantTransaction,
  SandboxTransactionRequest,
  SandboxTransactionResponse,
};

export type {
  AppStatus,
  Batch,
  CardRecord,
  CardTransaction,
  CommandError,
  ConnectionInfo,
  ConnectionTarget,
  EnrollCardRequest,
  ExportResult,
  LiveEvent,
  LoginInput,
  RotateResult,
  SandboxCard,
  SessionInfo,
  SignupResult,
};

/** A failed command: the service's message, code and request id, or the app's own. */
export class ApiError extends Error implements CommandError {
  code: string;
  requestId: string | null;
  status: number | null;
  details: CommandError["details"];

  constructor(error: CommandError) {
    super(error.message);
    this.name = "ApiError";
    this.code = error.code;
    this.requestId = error.requestId;
    this.status = error.status;
    this.details = error.details;
  }

  get unreachable(): boolean {
    return this.code === "unreachable";
  }

  /** The message of one field, for inline validation. */
  field(name: string): string | undefined {
    return this.details.find((detail) => detail.field === name)?.message;
  }
}

function isCommandError(value: unknown): value is CommandError {
  return typeof value === "object" && value !== null && "code" in value && "message" in value;
}

export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isCommandError(error)) return new ApiError(error);
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError({ code: "internal", message, requestId: null, status: null, details: [] });
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (error) {
    throw toApiError(error);
  }
}

// ---- Pages in the browser (card entry, bank sign-in), bank accounts, identity, overview ----

import type { Account } from "./bindings/Account";
import type { AccountTransaction } from "./bindings/AccountTransaction";
import type { AuthenticatePersonRequest } from "./bindings/AuthenticatePersonRequest";
import type { AuthenticatePersonResponse } from "./bindings/AuthenticatePersonResponse";
import type { Bank } from "./bindings/Bank";
import type { CardSession } from "./bindings/CardSession";
import type { OnboardPersonRequest } from "./bindings/OnboardPersonRequest";
import type { Overview } from "./bindings/Overview";
import type { Person } from "./bindings/Person";
import type { SecurePage } from "./bindings/SecurePage";
import type { VerifyPersonRequest } from "./bindings/VerifyPersonRequest";
import type { VerifyPersonResponse } from "./bindings/VerifyPersonResponse";
import type { CreateWebhookRequest } from "./bindings/CreateWebhookRequest";
import type { LoggedCall } from "./bindings/LoggedCall";
import type { LoggedRequest } from "./bindings/LoggedRequest";
import type { Event as ServiceEvent } from "./bindings/Event";
import type { UpdateWebhookRequest } from "./bindings/UpdateWebhookRequest";
import type { Webhook } from "./bindings/Webhook";
import type { WebhookDeleted } from "./bindings/WebhookDeleted";
import type { WebhookDelivery } from "./bindings/WebhookDelivery";
import type { WebhookQueued } from "./bindings/WebhookQueued";
import type { WebhookQueue } from "./bindings/WebhookQueue";
import type { WebhookRecovered } from "./bindings/WebhookRecovered";
import type { ApiVersion } from "./bindings/ApiVersion";
import type { ApiVersions } from "./bindings/ApiVersions";

export type {
  ApiVersion,
  ApiVersions,
  CreateWebhookRequest,
  LoggedCall,
  LoggedRequest,
  ServiceEvent,
  UpdateWebhookRequest,
  Webhook,
  WebhookDelivery,
  WebhookQueue,
  WebhookQueued,
  WebhookRecovered,
};

export type {
  Account,
  AccountTransaction,
  AuthenticatePersonRequest,
  AuthenticatePersonResponse,
  Bank,
  CardSession,
  OnboardPersonRequest,
  Overview,
  Person,
  SecurePage,
  VerifyPersonRequest,
  VerifyPersonResponse,
};

/** What a watch's channel carries: a Rust `Result`, as serde writes it. */
type Polled<T> = { Ok: T } | { Err: CommandError };

/** Follows a page opened in the browser: `onUpdate` on every answer, `onError` once when
 * following fails; the returned function stops following. */
async function follow<T>(
  command: string,
  args: Record<string, unknown>,
  onUpdate: (value: T) => void,
  onError: (error: ApiError) => void,
): Promise<() => Promise<void>> {
  const channel = new Channel<Polled<T>>();
  channel.onmessage = (message) => {
    if ("Ok" in message) onUpdate(message.Ok);
    else onError(toApiError(message.Err));
  };
  const watchId = await call<number>(command, { ...args, onUpdate: channel });
  return () => call<void>("stop_watch", { watchId });
}

const secureFlows = {
  overview: () => call<Overview>("overview"),
  /** Keeps the screen shown (`cards`, `card/12`, `accounts`...) to open it after the next sign-in. */
  rememberScreen: (screen: string) => call<void>("remember_screen", { screen }),
  /** Opens a page of the connected service in the system browser (other addresses are refused). */
  openInBrowser: (url: string) => call<void>("open_secure_page", { url }),

  /** Starts a secure card-entry page and opens it in the browser. */
  startCardSession: () => call<SecurePage>("start_card_session"),
  watchCardSession: (
    sessionId: number,
    onUpdate: (session: CardSession) => void,
    onError: (error: ApiError) => void,
  ) => follow<CardSession>("watch_card_session", { sessionId }, onUpdate, onError),

  banks: () => call<Bank[]>("banks"),
  accounts: () => call<Account[]>("accounts"),
  /** Starts linking an account at `bank` and opens the bank's sign-in page in the browser. */
  linkAccount: (bank: string) => call<SecurePage>("link_account", { bank }),
  watchAccount: (
    accountId: number,
    onUpdate: (account: Account) => void,
    onError: (error: ApiError) => void,
  ) => follow<Account>("watch_account", { accountId }, onUpdate, onError),
  accountTransactions: (accountId: number) =>
    call<AccountTransaction[]>("account_transactions", { accountId }),

  persons: () => call<Person[]>("persons"),
  person: (personId: number) => call<Person>("person", { personId }),
  onboardPerson: (person: OnboardPersonRequest) => call<Person>("onboard_person", { person }),
  /** The personal information checked by the service's own rules: every field error at once. */
  checkPersonalInfo: (information: AuthenticatePersonRequest) =>
    call<FieldError[]>("check_personal_info", { information }),
  authenticatePerson: (information: AuthenticatePersonRequest) =>
    call<AuthenticatePersonResponse>("authenticate_person", { information }),
  verifyPerson: (answers: VerifyPersonRequest) =>
    call<VerifyPersonResponse>("verify_person", { answers }),

  // ---- Developers: webhook endpoints, their deliveries, the event log ----
  webhooks: () => call<Webhook[]>("webhooks"),
  /** The endpoint form checked by the service's own rules: every field error at once. */
  checkWebhook: (request: CreateWebhookRequest) => call<FieldError[]>("check_webhook", { request }),
  /** The answer holds the endpoint's secret, shown once. */
  createWebhook: (request: CreateWebhookRequest) => call<Webhook>("create_webhook", { request }),
  updateWebhook: (webhookId: number, change: UpdateWebhookRequest) =>
    call<Webhook>("update_webhook", { webhookId, change }),
  deleteWebhook: (webhookId: number) => call<WebhookDeleted>("delete_webhook", { webhookId }),
  /** A new secret, shown once; the previous one keeps signing for 24 hours. */
  rotateWebhookSecret: (webhookId: number) => call<Webhook>("rotate_webhook_secret", { webhookId }),
  testWebhook: (webhookId: number) => call<WebhookQueued>("test_webhook", { webhookId }),
  webhookDeliveries: (webhookId: number) =>
    call<WebhookDelivery[]>("webhook_deliveries", { webhookId }),
  resendWebhookDelivery: (webhookId: number, eventId: string) =>
    call<WebhookQueued>("resend_webhook_delivery", { webhookId, eventId }),
  /** One endpoint with its delivery queue: length, next attempt, last error. */
  webhook: (webhookId: number) => call<Webhook>("webhook", { webhookId }),
  /** Queues again every delivery to the endpoint that failed for good since `since` (RFC 3339). */
  recoverWebhookDeliveries: (webhookId: number, since: string) =>
    call<WebhookRecovered>("recover_webhook_deliveries", { webhookId, since }),
  events: (eventType: string | null) => call<ServiceEvent[]>("events", { eventType }),
  /** The subscriber's last 100 API requests, newest first, each with its route, whether the
   *  app made it by itself, its headers and a cURL line. */
  requestLog: () => call<LoggedCall[]>("request_log"),
  /** The account's pinned API version and every version with what it changed. */
  apiVersions: () => call<ApiVersions>("api_versions"),
  /** Moves the account's pin (after the person confirmed it). */
  setApiVersion: (version: ApiVersion) => call<ApiVersions>("set_api_version", { version }),
};

/**
 * Runs a command that streams a list over a channel (`onBatch`) and answers with the row count.
 * Resolves once the answer has come *and* the last batch (`done`) has been delivered: a channel's
 * big messages are fetched separately and can arrive after the command's answer.
 */
export function loadBatches<T>(
  command: string,
  args: Record<string, unknown>,
  onBatch: (batch: Batch<T>) => void,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let answer: number | null = null;
    let delivered = false;
    const channel = new Channel<Batch<T>>();
    channel.onmessage = (batch) => {
      try {
        onBatch(batch);
      } catch (error) {
        reject(error);
        return;
      }
      if (batch.done) {
        delivered = true;
        if (answer !== null) resolve(answer);
      }
    };
    call<number>(command, { ...args, onBatch: channel }).then((count) => {
      answer = count;
      if (delivered) resolve(count);
    }, reject);
  });
}

export const api = {
  status: () => call<AppStatus>("status"),
  connect: (target: ConnectionTarget) => call<ConnectionInfo>("connect", { target }),
  signUp: (email: string) => call<SignupResult>("sign_up", { email }),
  logIn: (input: LoginInput) => call<SessionInfo>("log_in", { input }),
  signOut: () => call<void>("sign_out"),
  forgetRemembered: () => call<void>("forget_remembered"),
  revealSecret: () => call<string>("reveal_secret"),
  rotateSecret: () => call<RotateResult>("rotate_secret"),
  cards: () => call<CardRecord[]>("list_cards"),
  testCards: () => call<SandboxCard[]>("test_cards"),
  /** A card's subscriptions and bills, the latest paid first. */
  cardRecurring: (cardId: number) => call<RecurringStream[]>("card_recurring", { cardId }),
  enrollCard: (card: EnrollCardRequest) => call<EnrollCardResponse>("enroll_card", { card }),
  simulateTransaction: (cardId: number) =>
    call<CardTransaction>("simulate_transaction", { cardId }),

  /** Every transaction of a card; `onBatch` sees each page as it arrives. */
  loadTransactions(cardId: number, onBatch: (batch: TransactionBatch) => void): Promise<number> {
    return loadBatches("load_transactions", { cardId }, onBatch);
  },

  /** Live transactions of a card until the returned function is called. */
  async watchTransactions(
    cardId: number,
    onEvent: (event: CardLiveEvent) => void,
  ): Promise<() => Promise<void>> {
    const channel = new Channel<CardLiveEvent>();
    channel.onmessage = onEvent;
    const watchId = await call<number>("watch_transactions", { cardId, onEvent: channel });
    return () => call<void>("stop_watch", { watchId });
  },

  /** Asks where to save, then writes those rows; `null` when the user cancels. */
  exportCsv: (cardId: number, transactionIds: number[]) =>
    call<ExportResult | null>("export_transactions_csv", { cardId, transactionIds }),

  // ---- Merchant, locations, merchant transactions, lookup ----

  /** The subscriber's merchant, or `null` before enrolling. */
  merchant: () => call<Merchant | null>("merchant"),
  /** Every country the service accepts (alpha-3 code and name), by name. */
  countries: () => call<Country[]>("countries"),
  /** Categories matching a code (`58`, `5812`) or words of the description, best first. */
  searchCategories: (query: string) => call<MerchantCategory[]>("search_categories", { query }),
  /** The form checked by the service's rules: every field error at once (empty when valid). */
  checkMerchant: (merchant: EnrollMerchantRequest) =>
    call<FieldError[]>("check_merchant", { merchant }),
  enrollMerchant: (merchant: EnrollMerchantRequest) =>
    call<Merchant>("enroll_merchant", { merchant }),
  /** Field errors named `location.street`, `location.latitude`... */
  checkLocation: (location: LocationInput) => call<FieldError[]>("check_location", { location }),
  addLocation: (location: LocationInput) =>
    call<CreateLocationResponse>("add_location", { location }),
  /** What card statements print for a location of `merchantName` in `city` (22 characters). */
  statementDescriptor: (merchantName: string, city: string) =>
    call<StatementDescriptor>("statement_descriptor", { merchantName, city }),
  /** The merchant's sales over the days asked for against as many days before, in total and
   *  per location. */
  merchantSales: (query: SalesQuery) => call<MerchantSales>("merchant_sales", { query }),
  /** A sandbox purchase now, e.g. at one of the merchant's locations by one of the cards. */
  simulatePurchase: (request: SandboxTransactionRequest) =>
    call<SandboxTransactionResponse>("simulate_purchase", { request }),

  /** Every transaction across the merchant's locations; `onBatch` sees each page as it arrives. */
  loadMerchantTransactions(onBatch: (batch: MerchantBatch) => void): Promise<number> {
    return loadBatches("load_merchant_transactions", {}, onBatch);
  },

  /** Live transactions at the merchant's locations until the returned function is called. */
  async watchMerchantTransactions(
    onEvent: (event: MerchantLiveEvent) => void,
  ): Promise<() => Promise<void>> {
    const channel = new Channel<MerchantLiveEvent>();
    channel.onmessage = onEvent;
    const watchId = await call<number>("watch_merchant_transactions", { onEvent: channel });
    return () => call<void>("stop_watch", { watchId });
  },

  /** Asks where to save, then writes those rows; `null` when the user cancels. */
  exportMerchantCsv: (transactionIds: number[]) =>
    call<ExportResult | null>("export_merchant_csv", { transactionIds }),

  /** Merchants by statement descriptor, address or position; kept among the session's lookups. */
  lookup: (query: LookupQuery) => call<Lookup>("lookup", { query }),
  /** This session's lookups, newest first. */
  recentLookups: () => call<Lookup[]>("recent_lookups"),
  /** A CSV's rows enriched and saved where the person chooses; null when the save was cancelled. */
  enrichCsv: (csvText: string, fileName: string) =>
    call<EnrichedFile | null>("enrich_csv", { csvText, fileName }),

  // ---- end of merchant and lookup ----

  /** Tells the app its first screen is usable (start-up timing). */
  ready: () => call<void>("app_ready"),

  // ---- The desktop: screens asked for from outside, the palette, notifications ----

  /** Screens asked for by a `subscriber-data://` link or a notification's click, as route
   *  names (`card/12`); one asked for before the page listened comes at once. */
  async watchNavigation(onRoute: (route: string) => void): Promise<void> {
    const channel = new Channel<string>();
    channel.onmessage = onRoute;
    await call<void>("watch_navigation", { onRoute: channel });
  },
  /** What the command palette searches, read when it opens. */
  paletteIndex: () => call<PaletteIndex>("palette_index"),
  /** One event by id (`evt_41`). */
  event: (eventId: string) => call<ServiceEvent>("event", { eventId }),
  notificationSettings: () => call<NotificationSettings>("notification_settings"),
  setNotificationSettings: (settings: NotificationSettings) =>
    call<void>("set_notification_settings", { settings }),
  showTestNotification: () => call<void>("show_test_notification"),

  ...secureFlows,
};
