// Inline validation: the service's own rules run in the app (check_merchant, check_location)
// on every change; a field's message shows once the field was left or the form submitted.
import { tick } from "svelte";
import type { FieldError } from "./bindings/FieldError";

/** Field errors by field name (the first message of a field wins). */
export function byField(errors: readonly FieldError[], prefix = ""): Record<string, string> {
  const found: Record<string, string> = {};
  for (const error of errors) {
    const field =
      prefix && error.field.startsWith(prefix) ? error.field.slice(prefix.length) : error.field;
    found[field] ??= sentence(field, error.message);
  }
  return found;
}

const FIELD_WORDS: Record<string, string> = {
  name: "The name",
  category: "The category",
  countryCode: "The country",
  phoneNumber: "The phone number",
  website: "The website",
  street: "The street",
  streetNo: "The number",
  city: "The city",
  zip: "The postcode",
  latitude: "The latitude",
  longitude: "The longitude",
  dateOfBirth: "The date of birth",
  firstName: "The first name",
  lastName: "The last name",
  email: "The e-mail address",
  ssnLast4: "The SSN's last four digits",
  url: "The URL",
  description: "The description",
  events: "The list of events",
  pan: "The card number",
  expMonth: "The expiry month",
  expYear: "The expiry year",
  radius: "The radius",
  baseUrl: "The address",
  descriptor: "The descriptor",
  amount: "The amount",
  merchantName: "The merchant name",
  cardId: "The card",
};

/**
 * The rules speak to an API caller ("send both or neither", "a three-letter country code"); a
 * person at a form picks from a list and leaves fields empty. Their words, by field and by what
 * the rule says.
 */
const IN_PERSON_WORDS: { field: RegExp; says: RegExp; words: string }[] = [
  {
    field: /^longitude$/,
    says: /^is required when latitude is sent/,
    words: "Add the longitude too, or leave both coordinates empty.",
  },
  {
    field: /^latitude$/,
    says: /^is required when longitude is sent/,
    words: "Add the latitude too, or leave both coordinates empty.",
  },
  { field: /countryCode$/, says: /^is required/, words: "Choose a country." },
  { field: /countryCode$/, says: /country code/, words: "Choose a country from the list." },
  { field: /^category$/, says: /^is required/, words: "Choose a category." },
  {
    field: /^dateOfBirth$/,
    says: /^must be a real date/,
    words: "Type a real date, e.g. 23 Apr 1987, or pick one.",
  },
  {
    field: /^createdAt$/,
    says: /^must be a time/,
    words: "Pick a time from 36 months ago up to now.",
  },
];

/** Words a rule's message starts with when it leaves its subject out ("is required"). */
const PREDICATE = /^(is|are|must|has|have|should|cannot|can't|needs?|contains?|may|lies)\b/;

/**
 * A field's message as a sentence of its own: the service says "is in the future"; beside the
 * field that reads "The date of birth is in the future." Every message starts with a capital
 * and ends with a full stop.
 */
export function sentence(field: string, message: string): string {
  let text = message.trim();
  const plain = IN_PERSON_WORDS.find((rule) => rule.field.test(field) && rule.says.test(text));
  if (plain) return plain.words;
  const subject = FIELD_WORDS[field.replace(/\[\d+\]$/, "")];
  if (subject && PREDICATE.test(text)) text = `${subject} ${text}`;
  text = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * Runs `check` on each new input and hands on only the newest answer: a slow answer to an
 * older input never overwrites a newer one.
 */
export function latestOnly<I, O>(
  check: (input: I) => Promise<O>,
  onResult: (output: O) => void,
): (input: I) => Promise<void> {
  let sequence = 0;
  return async (input: I) => {
    const mine = ++sequence;
    const output = await check(input);
    if (mine === sequence) onResult(output);
  };
}

/** A form's submit handler that stays on the page and does `action` instead (a search, a retry). */
export function submitWith(action: () => void): (event: SubmitEvent) => void {
  return (event) => {
    event.preventDefault();
    action();
  };
}

/** A number typed in a field, `undefined` when the field is empty, `NaN` when it is not a number. */
export function optionalNumber(text: string | number | null | undefined): number | undefined {
  if (text === null || text === undefined) return undefined;
  if (typeof text === "number") return Number.isFinite(text) ? text : undefined;
  const trimmed = text.trim().replace(",", ".");
  if (!trimmed) return undefined;
  return /^[-+]?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : Number.NaN;
}

/** After a refused submit: the first field marked invalid in the form `testid` takes the focus. */
export async function focusFirstInvalid(testid: string): Promise<void> {
  await tick();
  document.querySelector<HTMLElement>(`[data-testid="${testid}"] [aria-invalid="true"]`)?.focus();
}
