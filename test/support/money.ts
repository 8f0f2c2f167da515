import Decimal from 'decimal.js';
import { BUNDLED_SNAPSHOT } from '../../src/modules/rates/domain/default-snapshot';

/** Exact decimals for expected amounts (as the service computes: 200 digits, half-up). */
export const D = Decimal.clone({ precision: 200, rounding: Decimal.ROUND_HALF_UP });
/** An amount as the API renders it: 30 fractional digits, rounded half-up. */
export const r30 = (d: Decimal.Value) => new D(d).toFixed(30, Decimal.ROUND_HALF_UP);
/** Zero as the API renders it. */
export const ZERO30 = r30(0);

export type BundledCurrency = keyof typeof BUNDLED_SNAPSHOT.rates;
/** The USD rate of a currency in the bundled rates snapshot (what a fresh test database has). */
export const rate = (c: BundledCurrency) => new D(BUNDLED_SNAPSHOT.rates[c]);
/** amount * from / to, rounded half-up at 30 digits, as the service converts. */
export const convert = (amount: Decimal.Value, from: BundledCurrency, to: BundledCurrency) =>
  new D(amount).mul(rate(from)).div(rate(to)).toDecimalPlaces(30, Decimal.ROUND_HALF_UP);
