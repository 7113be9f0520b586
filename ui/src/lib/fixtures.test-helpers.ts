// Sample data shared by the vitest suites (not part of the app bundle: only tests import it).
import type { CardTransaction } from "./bindings/CardTransaction";
import type { Person } from "./bindings/Person";

/** A person onboarded and not yet verified; `overrides` sets what a test is about. */
export function samplePerson(overrides: Partial<Person> = {}): Person {
  return {
    personId: 7,
    firstName: "Ada",
    lastName: "Lovelace",
    email: "ada@example.com",
    status: "onboarded",
    verified: false,
    attemptsRemaining: 3,
    createdAt: "2026-03-07T09:00:00Z",
    clientUserId: null,
    metadata: {},
    ...overrides,
  };
}

/** A settled 10 USD coffee on card 1 in Oakland; `overrides` sets what a test is about. */
export function sampleTransaction(overrides: Partial<CardTransaction> = {}): CardTransaction {
  return {
    transactionId: 1,
    createdAt: "2026-03-07T09:05:00Z",
    pending: false,
    amount: 10,
    currency: "USD",
    merchantName: "Blue Bottle Coffee",
    street: "Main St",
    streetNo: "1",
    city: "Oakland",
    country: "USA",
    zip: "94607",
    category: "5814 Fast Food Restaurants",
    descriptor: "SQ *BLUE BOTTLE",
    cardId: 1,
    counterparty: null,
    intermediaries: [],
    channel: "in_store",
    personalFinanceCategory: null,
    recurringStreamId: null,
    refundOf: null,
    ...overrides,
  };
}
