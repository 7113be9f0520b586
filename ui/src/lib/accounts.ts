// How a bank account is named to a person: by the bank's name for it and the last four digits
// of its number once linked ("Everyday Checking •••• 0417"), by its bank before.
import type { Account } from "./bindings/Account";

export function accountName(account: Account): string {
  if (!account.name) return account.bank.name;
  return account.mask ? `${account.name} •••• ${account.mask}` : account.name;
}

/** The line under the name: the bank and the kind of account, when the name is the bank's. */
export function accountHolder(account: Account): string | null {
  if (!account.name) return null;
  return [account.bank.name, account.type].filter(Boolean).join(" · ");
}

/** The account and its bank in one phrase ("Everyday Checking •••• 0417 at Northwind Bank"),
 *  for what concerns the bank login, as consent does. */
export function accountAtBank(account: Account): string {
  return account.name ? `${accountName(account)} at ${account.bank.name}` : account.bank.name;
}
