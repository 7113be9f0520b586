import { toApiError, type ApiError } from "./api";

/** Something a screen loads from the service: its value (`initial` until the first answer), the
 *  last failure, and `load()` to (re)fetch it. A failed load keeps the previous value, so a
 *  screen can show its error with a retry beside what it already had. */
export interface Resource<T> {
  value: T;
  readonly error: ApiError | null;
  load(): Promise<void>;
}

export function resource<T>(fetch: () => Promise<T>, initial: T): Resource<T> {
  let value = $state(initial) as T;
  let error: ApiError | null = $state(null);
  return {
    get value() {
      return value;
    },
    // Writable so a screen can fold in what it changed itself without another round trip.
    set value(next: T) {
      value = next;
    },
    get error() {
      return error;
    },
    async load() {
      error = null;
      try {
        value = await fetch();
      } catch (failure) {
        error = toApiError(failure);
      }
    },
  };
}
