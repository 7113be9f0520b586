// What the detail drawer of a transaction says, in words, for a card's and a merchant's.
import type { CardTransaction } from "./bindings/CardTransaction";
import type { MerchantTransaction } from "./bindings/MerchantTransaction";
import type { Fact } from "./components/Facts.svelte";
import { categoryWords, channelWords, matchWords } from "./enrichment";
import { exactTime, money } from "./format";

function status(pending: boolean, amount: number): string {
  if (pending) return "Pending: not settled yet";
  return amount < 0 ? "Refund, settled" : "Settled";
}

/** Who the payment was with, how sure that is, and through whom it went. */
function counterpartyFacts(tx: CardTransaction): Fact[] {
  const found = tx.counterparty;
  const through = tx.intermediaries.map((party) => party.name).join(", ");
  const facts: Fact[] = [];
  if (found) {
    facts.push({ label: "Counterparty", value: found.name });
    facts.push({ label: "Match", value: matchWords(found.confidence, found.score) });
    if (found.website) facts.push({ label: "Website", value: found.website });
  } else {
    facts.push({ label: "Counterparty", value: "Not recognised" });
  }
  if (found?.name !== tx.merchantName) facts.push({ label: "Merchant", value: tx.merchantName });
  if (through) facts.push({ label: "Paid through", value: through });
  return facts;
}

export function cardTransactionFacts(tx: CardTransaction): Fact[] {
  const time = Date.parse(tx.createdAt);
  return [
    { label: "Amount", value: money(tx.amount, tx.currency) },
    { label: "Status", value: status(tx.pending, tx.amount) },
    { label: "Date", value: Number.isNaN(time) ? tx.createdAt : exactTime(time) },
    ...counterpartyFacts(tx),
    { label: "Descriptor", value: tx.descriptor, mono: true, copy: true },
    ...(tx.personalFinanceCategory
      ? [{ label: "Category", value: categoryWords(tx.personalFinanceCategory) }]
      : []),
    { label: "Merchant category", value: tx.category },
    { label: "Channel", value: channelWords(tx.channel) },
    ...(tx.recurringStreamId
      ? [{ label: "Recurring", value: tx.recurringStreamId, mono: true, copy: true }]
      : []),
    ...(tx.refundOf !== null
      ? [{ label: "Refund of", value: `Transaction ${tx.refundOf}`, mono: true }]
      : []),
    {
      label: "Location",
      value: [`${tx.streetNo} ${tx.street}`.trim(), tx.city, tx.zip, tx.country]
        .filter(Boolean)
        .join(", "),
    },
    { label: "Transaction id", value: String(tx.transactionId), mono: true, copy: true },
  ];
}

export function merchantTransactionFacts(tx: MerchantTransaction, card: string): Fact[] {
  const time = Date.parse(tx.createdAt);
  return [
    { label: "Amount", value: money(tx.amount, tx.currency) },
    { label: "Status", value: status(tx.pending, tx.amount) },
    { label: "Date", value: Number.isNaN(time) ? tx.createdAt : exactTime(time) },
    { label: "Card", value: `•••• ${card}`, mono: true },
    {
      label: "Location",
      value: [`${tx.streetNo} ${tx.street}`, tx.city, tx.zip, tx.country].join(", "),
    },
    { label: "Location id", value: String(tx.locationId), mono: true, copy: true },
    { label: "Transaction id", value: String(tx.transactionId), mono: true, copy: true },
  ];
}
