// The one live transaction table model (a card's, a merchant's): the whole list loaded in
// batches and shown as it arrives, then the live stream followed: each new transaction goes
// in its sorted place (a settled one replaces its pending row) and flashes once. A click on a
// column header sorts.
import { toApiError, type ApiError, type LiveEvent } from "./api";
import { Arrivals, nextSort } from "./arrivals.svelte";

export interface Sort<K extends string> {
  key: K;
  descending: boolean;
}

export interface LiveTableSpec<T, R, K extends string> {
  prepare(tx: T): R;
  sortRows(rows: readonly R[], sort: Sort<K>): R[];
  upsert(rows: readonly R[], row: R, sort: Sort<K>): R[];
  sort: Sort<K>;
  /** Streams the whole list, newest first, batch by batch. */
  load(onBatch: (batch: { rows: T[]; loaded: number }) => void): Promise<unknown>;
  /** Follows the live stream; resolves with how to stop following it. */
  watch(onEvent: (event: LiveEvent<T>) => void): Promise<() => Promise<void>>;
  /** Runs before the list loads (the card's own record, say); a failure is the table's. */
  before?: () => Promise<void>;
}

export class LiveTable<T, R extends { tx: { transactionId: number } }, K extends string> {
  // Raw state: 100,000 rows must not become deep proxies.
  rows: R[] = $state.raw([]);
  loaded = $state(0);
  done = $state(false);
  error: ApiError | null = $state(null);
  sort: Sort<K>;
  live: { live: boolean; message: string | null } = $state({ live: false, message: "connecting" });
  readonly arrivals = new Arrivals();
  private stopWatch: (() => Promise<void>) | null = null;
  private destroyed = false;

  constructor(private readonly spec: LiveTableSpec<T, R, K>) {
    this.sort = $state(spec.sort);
  }

  /** Loads the list, then follows the stream; a failure shows as `error` (retry: call again). */
  load = async () => {
    this.error = null;
    this.rows = [];
    this.loaded = 0;
    this.done = false;
    try {
      await this.spec.before?.();
      let buffer: R[] = [];
      await this.spec.load((batch) => {
        if (this.destroyed) return;
        for (const tx of batch.rows) buffer.push(this.spec.prepare(tx));
        this.loaded = batch.loaded;
        // Show what has arrived so far. The service sends the newest first, the tables' default
        // order: then a copy will do, and the one sort comes at the end.
        const newestFirst = this.sort.key === "time" && this.sort.descending;
        this.rows = newestFirst ? buffer.slice() : this.spec.sortRows(buffer, this.sort);
      });
      this.rows = this.spec.sortRows(buffer, this.sort);
      this.done = true;
      buffer = [];
    } catch (failure) {
      this.error = toApiError(failure);
      return;
    }
    await this.follow();
  };

  private async follow() {
    if (this.stopWatch || this.destroyed) return;
    try {
      this.stopWatch = await this.spec.watch(this.onEvent);
    } catch (failure) {
      this.live = { live: false, message: toApiError(failure).message };
      return;
    }
    if (this.destroyed) await this.stopWatch();
  }

  private onEvent = (event: LiveEvent<T>) => {
    if (event.kind === "status") {
      this.live = { live: event.live, message: event.message };
      return;
    }
    const row = this.spec.prepare(event.transaction);
    this.rows = this.spec.upsert(this.rows, row, this.sort);
    this.arrivals.flash(row.tx.transactionId);
  };

  /** Drops a row that is gone (a reversed authorization: no stream event says so). */
  remove = (transactionId: number) => {
    this.rows = this.rows.filter((row) => row.tx.transactionId !== transactionId);
  };

  onSort = (key: K) => {
    this.sort = nextSort(this.sort, key);
    this.rows = this.spec.sortRows(this.rows, this.sort);
  };

  /** Stops following the stream (the screen is gone). */
  destroy() {
    this.destroyed = true;
    void this.stopWatch?.();
  }
}
