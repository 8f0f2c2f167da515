import type { Currency } from '../../../shared/money/currency';

/**
 * The exchange-rate snapshot shipped with the service: the USD value of one unit of each currency,
 * as markets stood on the snapshot's date. Deployments load newer ones with `rates:import` or plug a
 * live RateSource; this one only makes a fresh install usable.
 */
export const BUNDLED_SNAPSHOT: { takenAt: string; source: string; rates: Record<Currency, string> } = {
  takenAt: '2026-11-20 00:00:00',
  source: 'bundled',
  rates: {
    BITCOIN: '91250.42', ETHEREUM: '3046.18', USDT: '1.0002', USDC: '0.9999', USDC_NATIVE: '0.9999',
    SOLANA: '138.74', BINANCE_COIN: '889.61', RIPPLE: '2.0473', POLYGON: '0.3812', TRON: '0.2796',
    LITECOIN: '88.35', BITCOIN_CASH: '521.09', DOGECOIN: '0.16034',
    USD: '1', EUR: '1.1587', CHF: '1.2491', GBP: '1.3112', AUD: '0.6498', JPY: '0.006392', CNY: '0.14053',
    CAD: '0.7108', HKD: '0.12853', SGD: '0.76812', SEK: '0.10497', KRW: '0.000681', NOK: '0.09812',
    NZD: '0.56479', INR: '0.011268', MXN: '0.054492', TWD: '0.032215', ZAR: '0.057806', BRL: '0.18711',
    DKK: '0.15524', PLN: '0.27391', THB: '0.030812', ILS: '0.30483', IDR: '0.00005998', CZK: '0.047792',
    AED: '0.27229', TRY: '0.023612', HUF: '0.0030217', CLP: '0.0010694', SAR: '0.26658', PHP: '0.016951',
    MYR: '0.24049', COP: '0.00026213', RUB: '0.012398', RON: '0.22847', PEN: '0.29706',
  },
};
