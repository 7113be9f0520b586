// The inline checks of a form, one way for every form that asks the service's rules as the
// person types: each change is checked (only the newest answer counts), a field's message
// shows once the field was left or the form submitted, and a submit checks once more and says
// whether the form may go.
import type { FieldError } from "./bindings/FieldError";
import { byField, latestOnly, sentence } from "./forms";

export interface FieldChecks<I> {
  /** Every field's message, the app's own (`extra`) over the service's. */
  readonly all: Record<string, string>;
  /** Checks `input` as typed (call it from an `$effect`). */
  watch(input: I): void;
  /** The message to show beside `field`, once the field was left or the form submitted. */
  shown(field: string): string | undefined;
  /** A blur handler that marks `field` as left. */
  leave(field: string): () => void;
  /** Marks the form submitted and checks `input`: `true` when nothing is wrong. */
  submit(input: I): Promise<boolean>;
  /** Adds the field errors of a refused request (and shows them: the form was sent). */
  refused(errors: readonly FieldError[]): void;
}

export function fieldChecks<I>(
  check: (input: I) => Promise<FieldError[]>,
  options: { prefix?: string; extra?: () => Record<string, string> } = {},
): FieldChecks<I> {
  const prefix = options.prefix ?? "";
  const extra = options.extra ?? (() => ({}));
  const safely = (input: I) => check(input).catch(() => [] as FieldError[]);
  let problems: Record<string, string> = $state({});
  const touched: Record<string, boolean> = $state({});
  let submitted = $state(false);
  const own = (): Record<string, string> => {
    const found: Record<string, string> = {};
    for (const [field, message] of Object.entries(extra()) as [string, string][])
      found[field] = sentence(field, message);
    return found;
  };
  const all: Record<string, string> = $derived({ ...problems, ...own() });
  const run = latestOnly(safely, (errors) => (problems = byField(errors, prefix)));
  return {
    get all() {
      return all;
    },
    watch: (input) => void run(input),
    shown: (field) => ((submitted || touched[field]) && all[field]) || undefined,
    leave: (field) => () => (touched[field] = true),
    async submit(input) {
      submitted = true;
      problems = byField(await safely(input), prefix);
      return Object.keys(all).length === 0;
    },
    refused(errors) {
      submitted = true;
      problems = { ...problems, ...byField(errors, prefix) };
    },
  };
}
