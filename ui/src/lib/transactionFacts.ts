// What the detail drawer of a transaction says, in words, for a card's and a merchant's.
import type { CardTransaction } from "./bindings/CardTransaction";
import type { MerchantTransaction } from "./bindings/MerchantTransaction";
import type { Fact } from "./components/Facts.svelte";
import { exactTime, money } from "./format";

function status(pending: boolean, amount: number): string {
  if (pending) return "Pending: not settled yet";
  return amount < 0 ? "Refund, settled" : "Settled";
}

export function cardTransactionFacts(tx: CardTransaction): Fact[] {
  const time = Date.parse(tx.createdAt);
  return [
    { label: "Amount", value: money(tx.amount, tx.currency) },
    { label: "Status", value: status(tx.pending, tx.amount) },
    { label: "Date", value: Number.isNaN(time) ? tx.createdAt : exactTime(time) },
    { label: "Merchant", value: tx.merchantName },
    { label: "Descriptor", value: tx.descriptor, mono: true, copy: true },
    { label: "Category", value: tx.category },
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
