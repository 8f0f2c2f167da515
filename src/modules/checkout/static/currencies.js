// How currencies read on the page. The facts (ticker, decimals, a coin's name) come from the server in
// the page's data block, so the page keeps no table of its own; a fiat currency's name and minor unit
// come from the browser's Intl data.
import { formatAmount, roundAmount, sendAmount } from './amounts.js';
import { cfg, currencies, currencyFacts, tr } from './page.js';

/** How a currency code reads next to an amount: the usual ticker for coins, the code otherwise. */
export const ticker = (currency) => currencyFacts[currency]?.ticker ?? currency;

/** A coin (its smallest unit is the catalog's decimals; a token's are its contract's), not a fiat currency. */
export const isCoin = (currency) => currencyFacts[currency]?.coin === true;

/** Places a price in this currency is shown with: a coin's smallest unit (at most 8), a fiat currency's minor unit. */
export function displayDecimals(currency) {
  if (isCoin(currency)) return Math.min(currencyFacts[currency].decimals, 8);
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
  } catch {
    return 2;
  }
}

/** A price or total: rounded to the currency's decimals, then read as formatAmount reads it. */
export function money(amount, currency) {
  return `${formatAmount(roundAmount(amount, displayDecimals(currency)))} ${ticker(currency)}`;
}

export function sendMoney(amount, currency) {
  return `${formatAmount(sendAmount(amount))} ${ticker(currency)}`;
}

/** Offered first, after the invoice's own currency: what most payers pick. */
export const COMMON_CURRENCIES = ['USD', 'EUR', 'GBP', 'BITCOIN', 'ETHEREUM', 'USDT', 'USDC'];

/** "Bitcoin (BTC)", "Swiss franc (CHF)": the name in the page's language where the browser knows it. */
export function currencyLabel(currency) {
  if (isCoin(currency)) {
    const name = currencyFacts[currency].name ?? currency;
    return name === ticker(currency) ? name : `${name} (${ticker(currency)})`;
  }
  try {
    const name = new Intl.DisplayNames([cfg.lang], { type: 'currency' }).of(currency);
    return name && name !== currency ? `${name.charAt(0).toUpperCase()}${name.slice(1)} (${currency})` : currency;
  } catch {
    return currency;
  }
}

/**
 * The currency choice, grouped as a payer looks for it: the invoice's currency and the common ones first,
 * then every other coin, then every other fiat currency by name.
 */
export function currencyGroups(invoiceCurrency) {
  const common = [...new Set([invoiceCurrency, ...COMMON_CURRENCIES])].filter((c) => currencies.includes(c));
  const byName = (a, b) => currencyLabel(a).localeCompare(currencyLabel(b), cfg.lang);
  const rest = currencies.filter((c) => !common.includes(c));
  return [
    { label: tr('currency_common'), list: common },
    { label: tr('currency_crypto'), list: rest.filter(isCoin).sort(byName) },
    { label: tr('currency_fiat'), list: rest.filter((c) => !isCoin(c)).sort(byName) },
  ].filter((g) => g.list.length);
}
