// The one typed wrapper around the app's commands: components call these, never `invoke`.
// Each command's function is generated from the command table (`./bindings/commands.ts`, made
// by `make bindings` from crates/dashboard/src/commands/table.rs); this file adds what is not
// generated: the error type, and the commands that stream over a channel taking callbacks.
import { Channel, invoke } from "@tauri-apps/api/core";

import { commands } from "./bindings/commands";
import type { AppStatus } from "./bindings/AppStatus";
import type { Batch } from "./bindings/Batch";
import type { CardRecord } from "./bindings/CardRecord";
import type { CardTransaction } from "./bindings/CardTransaction";
import type { CommandError } from "./bindings/CommandError";
import type { ConnectionInfo } from "./bindings/ConnectionInfo";
import type { ConnectionTarget } from "./bindings/ConnectionTarget";
import type { EnrollCardRequest } from "./bindings/EnrollCardRequest";
import type { ExportResult } from "./bindings/ExportResult";
import type { LiveEvent } from "./bindings/LiveEvent";
import type { LoginInput } from "./bindings/LoginInput";
import type { RotateResult } from "./bindings/RotateResult";
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
import type { RequestDetailView } from "./bindings/RequestDetailView";
import type { RequestLogView } from "./bindings/RequestLogView";
import type { Inspection } from "./bindings/Inspection";
import type { ShellAnswer } from "./bindings/ShellAnswer";
import type { ShellOperation } from "./bindings/ShellOperation";
import type { Event as ServiceEvent } from "./bindings/Event";
import type { UpdateWebhookRequest } from "./bindings/UpdateWebhookRequest";
import type { Webhook } from "./bindings/Webhook";
import type { WebhookDelivery } from "./bindings/WebhookDelivery";
import type { WebhookQueued } from "./bindings/WebhookQueued";
import type { WebhookQueue } from "./bindings/WebhookQueue";
import type { WebhookRecovered } from "./bindings/WebhookRecovered";
import type { ApiVersion } from "./bindings/ApiVersion";
import type { ApiVersions } from "./bindings/ApiVersions";
import type { SandboxSnapshot } from "./bindings/SandboxSnapshot";

export type {
  ApiVersion,
  ApiVersions,
  CreateWebhookRequest,
  SandboxSnapshot,
  LoggedCall,
  LoggedRequest,
  RequestDetailView,
  RequestLogView,
  Inspection,
  ServiceEvent,
  ShellAnswer,
  ShellOperation,
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

/** Every command as a typed function; a failure is an `ApiError`. */
const generated = commands(call);

/** What a watch's channel carries: a Rust `Result`, as serde writes it. */
type Polled<T> = { Ok: T } | { Err: CommandError };

/** Runs a command that answers a watch's id and then sends `M` on its channel until the
 * returned function stops it. */
async function watch<M>(
  start: (channel: Channel<M>) => Promise<number>,
  onMessage: (message: M) => void,
): Promise<() => Promise<void>> {
  const channel = new Channel<M>();
  channel.onmessage = onMessage;
  const watchId = await start(channel);
  return () => generated.stopWatch(watchId);
}

/** Follows a page opened in the browser: `onUpdate` on every answer, `onError` once when
 * following fails; the returned function stops following. */
function follow<T>(
  start: (channel: Channel<Polled<T>>) => Promise<number>,
  onUpdate: (value: T) => void,
  onError: (error: ApiError) => void,
): Promise<() => Promise<void>> {
  return watch<Polled<T>>(start, (message) => {
    if ("Ok" in message) onUpdate(message.Ok);
    else onError(toApiError(message.Err));
  });
}

/**
 * Runs a command that streams a list over a channel (`onBatch`) and answers with the row count.
 * Resolves once the answer has come *and* the last batch (`done`) has been delivered: a channel's
 * big messages are fetched separately and can arrive after the command's answer.
 */
export function loadBatches<T>(
  start: (channel: Channel<Batch<T>>) => Promise<number>,
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
    start(channel).then((count) => {
      answer = count;
      if (delivered) resolve(count);
    }, reject);
  });
}

export const api = {
  ...generated,

  /** Every transaction of a card; `onBatch` sees each page as it arrives. */
  loadTransactions: (cardId: number, onBatch: (batch: TransactionBatch) => void): Promise<number> =>
    loadBatches((channel) => generated.loadTransactions(cardId, channel), onBatch),

  /** Live transactions of a card until the returned function is called. */
  watchTransactions: (cardId: number, onEvent: (event: CardLiveEvent) => void) =>
    watch((channel) => generated.watchTransactions(cardId, channel), onEvent),

  /** Every transaction across the merchant's locations; `onBatch` sees each page as it arrives. */
  loadMerchantTransactions: (onBatch: (batch: MerchantBatch) => void): Promise<number> =>
    loadBatches(generated.loadMerchantTransactions, onBatch),

  /** Live transactions at the merchant's locations until the returned function is called. */
  watchMerchantTransactions: (onEvent: (event: MerchantLiveEvent) => void) =>
    watch(generated.watchMerchantTransactions, onEvent),

  /** Follows a secure card-entry page until it completes or expires. */
  watchCardSession: (
    sessionId: number,
    onUpdate: (session: CardSession) => void,
    onError: (error: ApiError) => void,
  ) => follow((channel) => generated.watchCardSession(sessionId, channel), onUpdate, onError),

  /** Follows an account until it is no longer pending. */
  watchAccount: (
    accountId: number,
    onUpdate: (account: Account) => void,
    onError: (error: ApiError) => void,
  ) => follow((channel) => generated.watchAccount(accountId, channel), onUpdate, onError),

  /** Screens asked for by a `subscriber-data://` link or a notification's click, as route
   *  names (`card/12`); one asked for before the page listened comes at once. */
  async watchNavigation(onRoute: (route: string) => void): Promise<void> {
    const channel = new Channel<string>();
    channel.onmessage = onRoute;
    await generated.watchNavigation(channel);
  },
};
