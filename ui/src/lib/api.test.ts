import type { Channel } from "@tauri-apps/api/core";
import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it } from "vitest";
import { api, ApiError } from "./api";

afterEach(() => clearMocks());

describe("the IPC wrapper", () => {
  it("passes arguments in the shape the commands take", async () => {
    const calls: [string, unknown][] = [];
    mockIPC((command, args) => {
      calls.push([command, args]);
      return command === "list_cards" ? [] : null;
    });
    await api.logIn({ email: "a@example.com", remember: true });
    await api.listCards();
    expect(calls).toEqual([
      ["log_in", { input: { email: "a@example.com", remember: true } }],
      ["list_cards", {}],
    ]);
  });

  it("turns a command's {code, message} into an ApiError", async () => {
    mockIPC(() => {
      throw {
        code: "token_expired",
        message: "the token expired",
        requestId: "req_1",
        status: 401,
        details: [],
      };
    });
    const error = await api.listCards().catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: "token_expired",
      message: "the token expired",
      requestId: "req_1",
      status: 401,
    });
  });

  it("follows a page in the browser: each answer, then an error once, and stops on request", async () => {
    const calls: [string, unknown][] = [];
    let channel: Channel<unknown> | undefined;
    mockIPC((command, args) => {
      calls.push([
        command,
        command === "watch_card_session"
          ? { sessionId: (args as { sessionId: number }).sessionId }
          : args,
      ]);
      if (command === "watch_card_session") {
        channel = (args as { onUpdate: Channel<unknown> }).onUpdate;
        return 17;
      }
      return null;
    });
    const updates: unknown[] = [];
    const errors: ApiError[] = [];
    const stop = await api.watchCardSession(
      4,
      (session) => updates.push(session),
      (error) => errors.push(error),
    );
    const completed = {
      sessionId: 4,
      status: "completed",
      cardId: 9,
      expiresAt: "2026-03-07T09:15:00Z",
    };
    channel?.onmessage({ Ok: completed });
    channel?.onmessage({
      Err: {
        code: "not_found",
        message: "no such session",
        requestId: "req_9",
        status: 404,
        details: [],
      },
    });
    expect(updates).toEqual([completed]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: "not_found", requestId: "req_9" });
    await stop();
    expect(calls).toEqual([
      ["watch_card_session", { sessionId: 4 }],
      ["stop_watch", { watchId: 17 }],
    ]);
  });
});
