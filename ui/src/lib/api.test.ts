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
    await api.cards();
    expect(calls).toEqual([
      ["log_in", { input: { email: "a@example.com", remember: true } }],
      ["list_cards", {}],
    ]);
  });

  it("turns a command's {code, message} into an ApiError", async () => {
    mockIPC(() => {
      throw { code: "token_expired", message: "the token expired", requestId: "req_1", status: 401, details: [] };
    });
    const error = await api.cards().catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "token_expired", message: "the token expired", requestId: "req_1", status: 401 });
  });
});
