// The one typed wrapper around the app's commands: components call these, never `invoke`.
import { Channel, invoke } from "@tauri-apps/api/core";
import { openUrl } from "@tauri-apps/plugin-opener";

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
import type { SandboxCard } from "./bindings/SandboxCard";
import type { SessionInfo } from "./bindings/SessionInfo";
import type { SignupResult } from "./bindings/SignupResult";

/** One page of a card's transactions while they load. */
export type TransactionBatch = Batch<CardTransaction>;
/** What a card's real-time stream reports. */
export type CardLiveEvent = LiveEvent<CardTransaction>;

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
  enrollCard: (card: EnrollCardRequest) => call<EnrollCardResponse>("enroll_card", { card }),
  simulateTransaction: (cardId: number) => call<CardTransaction>("simulate_transaction", { cardId }),

  /** Every transaction of a card; `onBatch` sees each page as it arrives. */
  loadTransactions(cardId: number, onBatch: (batch: TransactionBatch) => void): Promise<number> {
    const channel = new Channel<TransactionBatch>();
    channel.onmessage = onBatch;
    return call<number>("load_transactions", { cardId, onBatch: channel });
  },

  /** Live transactions of a card until the returned function is called. */
  async watchTransactions(cardId: number, onEvent: (event: CardLiveEvent) => void): Promise<() => Promise<void>> {
    const channel = new Channel<CardLiveEvent>();
    channel.onmessage = onEvent;
    const watchId = await call<number>("watch_transactions", { cardId, onEvent: channel });
    return () => call<void>("stop_watch", { watchId });
  },

  /** Asks where to save, then writes those rows; `null` when the user cancels. */
  exportCsv: (cardId: number, transactionIds: number[]) =>
    call<ExportResult | null>("export_transactions_csv", { cardId, transactionIds }),

  /** Tells the app its first screen is usable (start-up timing). */
  ready: () => call<void>("app_ready"),

  openInBrowser: (url: string) => openUrl(url),
};
