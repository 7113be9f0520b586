import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it } from "vitest";
import { api } from "./api";

afterEach(() => clearMocks());

type Internals = { runCallback: (id: number, data: unknown) => void };
const internals = () =>
  (window as unknown as { __TAURI_INTERNALS__: Internals }).__TAURI_INTERNALS__;

describe("loading a long list", () => {
  it("ends with the last batch, even when the command answers before the channel delivers it", async () => {
    let channelId = 0;
    mockIPC((command, args) => {
      expect(command).toBe("load_merchant_transactions");
      channelId = (args as { onBatch: { id: number } }).onBatch.id;
      // The answer comes first; the batches (big messages are fetched separately) after it.
      setTimeout(() => {
        internals().runCallback(channelId, {
          index: 1,
          message: { rows: [{ transactionId: 2 }], loaded: 2, done: true },
        });
        internals().runCallback(channelId, {
          index: 0,
          message: { rows: [{ transactionId: 1 }], loaded: 1, done: false },
        });
      }, 20);
      return 2;
    });
    const seen: number[] = [];
    let finished = false;
    const loading = api
      .loadMerchantTransactions((batch) => seen.push(...batch.rows.map((row) => row.transactionId)))
      .then((count) => {
        finished = true;
        return count;
      });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(finished).toBe(false);
    expect(await loading).toBe(2);
    expect(seen).toEqual([1, 2]);
  });

  it("fails with the command's error", async () => {
    mockIPC(() => {
      throw {
        code: "not_found",
        message: "no such card",
        requestId: "req_4",
        status: 404,
        details: [],
      };
    });
    await expect(api.loadTransactions(9, () => undefined)).rejects.toMatchObject({
      code: "not_found",
      requestId: "req_4",
    });
  });
});
