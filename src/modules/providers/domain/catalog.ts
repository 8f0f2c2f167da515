import type { Currency } from '../../../shared/money/currency';

/**
 * The payment providers shipped with the service (decisions §9). A provider is one way a payer can
 * pay: a coin or token on a network (CRYPTOCURRENCY), or card acquiring in one fiat currency (FIAT).
 * Ids are `prov_<network>_<gateway>` in lower case. Token decimals and contract addresses are the
 * real mainnet ones; native coins have no contract (''). Images are served by the service itself
 * from `/assets/providers/<file>.svg` (see provider-images.ts).
 *
 * The catalog is data, not configuration: each organization only chooses which providers are
 * enabled (provider_settings; all enabled until an operator disables one).
 */
export const PROVIDER_TYPES = ['CRYPTOCURRENCY', 'FIAT'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** How the payment is carried: the network's own coin, a token contract on it, or a card network. */
export type ProviderKind = 'native' | 'token' | 'card';

export interface CatalogProvider {
  id: string;
  name: string;
  slug: string;
  network: string;
  gateway: string;
  type: ProviderType;
  kind: ProviderKind;
  /** The currency a payment through this provider is denominated in. */
  currency: Currency;
  /** Smallest unit of the currency on this rail (satoshi = 8, wei = 18, USDT on Ethereum = 6, cents = 2). */
  decimals: number;
  /** Token contract (or SPL mint) on mainnet; '' for native coins and fiat. */
  contractAddress: string;
  /** Image file of the gateway (coin or token) and of the network, under /assets/providers/. */
  image: string;
  networkImage: string;
  /** Tags a checkout page can filter on. */
  filters: string[];
  /**
   * Blocks a payment must be buried under before it counts toward an invoice (0 for fiat, whose
   * acquirer reports completion). An organization may override it (provider_settings).
   */
  requiredConfirmations: number;
}

/**
 * Default confirmations per network (tokens inherit their network's), chosen to match what the
 * common gateways and exchanges wait for; docs/timing.md explains each.
 */
export const NETWORK_CONFIRMATIONS: Readonly<Record<string, number>> = {
  BITCOIN: 2,
  ETHEREUM: 12,
  TRON: 19,
  SOLANA: 32,
  POLYGON: 64,
  BSC: 15,
  LITECOIN: 6,
  DOGECOIN: 40,
  BITCOIN_CASH: 6,
  RIPPLE: 1,
};

/** Highest per-organization override accepted (well past any network's finality). */
export const MAX_REQUIRED_CONFIRMATIONS = 10_000;

interface Spec {
  network: string;
  gateway: string;
  name: string;
  currency: Currency;
  decimals: number;
  contract?: string;
  kind?: ProviderKind;
  image: string;
  networkImage?: string;
  stablecoin?: boolean;
}

function crypto(spec: Spec): CatalogProvider {
  const kind = spec.kind ?? (spec.contract ? 'token' : 'native');
  const id = `prov_${spec.network.toLowerCase()}_${spec.gateway.toLowerCase()}`;
  return {
    id,
    name: spec.name,
    slug: id.slice('prov_'.length).replace(/_/g, '-'),
    network: spec.network,
    gateway: spec.gateway,
    type: 'CRYPTOCURRENCY',
    kind,
    currency: spec.currency,
    decimals: spec.decimals,
    contractAddress: spec.contract ?? '',
    image: spec.image,
    networkImage: spec.networkImage ?? spec.image,
    filters: ['CRYPTO', kind === 'token' ? 'TOKEN' : 'NATIVE', ...(spec.stablecoin ? ['STABLECOIN'] : []), spec.network],
    requiredConfirmations: NETWORK_CONFIRMATIONS[spec.network],
  };
}

function card(currency: Currency): CatalogProvider {
  const id = `prov_card_${currency.toLowerCase()}`;
  return {
    id,
    name: `Card payment (${currency})`,
    slug: `card-${currency.toLowerCase()}`,
    network: 'CARD',
    gateway: currency,
    type: 'FIAT',
    kind: 'card',
    currency,
    decimals: 2,
    contractAddress: '',
    image: 'card.svg',
    networkImage: 'card.svg',
    filters: ['FIAT', 'CARD', currency],
    requiredConfirmations: 0,
  };
}

export const PROVIDER_CATALOG: readonly CatalogProvider[] = [
  crypto({ network: 'BITCOIN', gateway: 'BITCOIN', name: 'Bitcoin', currency: 'BITCOIN', decimals: 8, image: 'bitcoin.svg' }),
  crypto({ network: 'ETHEREUM', gateway: 'ETHEREUM', name: 'Ether', currency: 'ETHEREUM', decimals: 18, image: 'ethereum.svg' }),
  crypto({
    network: 'ETHEREUM',
    gateway: 'USDT',
    name: 'Tether USD (Ethereum, ERC-20)',
    currency: 'USDT',
    decimals: 6,
    contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    image: 'usdt.svg',
    networkImage: 'ethereum.svg',
    stablecoin: true,
  }),
  crypto({
    network: 'ETHEREUM',
    gateway: 'USDC',
    name: 'USD Coin (Ethereum, ERC-20)',
    currency: 'USDC',
    decimals: 6,
    contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    image: 'usdc.svg',
    networkImage: 'ethereum.svg',
    stablecoin: true,
  }),
  crypto({ network: 'TRON', gateway: 'TRON', name: 'TRON (TRX)', currency: 'TRON', decimals: 6, image: 'tron.svg' }),
  crypto({
    network: 'TRON',
    gateway: 'USDT',
    name: 'Tether USD (TRON, TRC-20)',
    currency: 'USDT',
    decimals: 6,
    contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    image: 'usdt.svg',
    networkImage: 'tron.svg',
    stablecoin: true,
  }),
  crypto({ network: 'SOLANA', gateway: 'SOLANA', name: 'Solana (SOL)', currency: 'SOLANA', decimals: 9, image: 'solana.svg' }),
  crypto({
    network: 'SOLANA',
    gateway: 'USDC',
    name: 'USD Coin (Solana, SPL)',
    currency: 'USDC',
    decimals: 6,
    contract: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    image: 'usdc.svg',
    networkImage: 'solana.svg',
    stablecoin: true,
  }),
  crypto({
    network: 'SOLANA',
    gateway: 'USDT',
    name: 'Tether USD (Solana, SPL)',
    currency: 'USDT',
    decimals: 6,
    contract: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
    image: 'usdt.svg',
    networkImage: 'solana.svg',
    stablecoin: true,
  }),
  crypto({ network: 'POLYGON', gateway: 'POLYGON', name: 'Polygon (POL)', currency: 'POLYGON', decimals: 18, image: 'polygon.svg' }),
  crypto({
    network: 'POLYGON',
    gateway: 'USDC_NATIVE',
    name: 'USD Coin, native (Polygon)',
    currency: 'USDC_NATIVE',
    decimals: 6,
    contract: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    image: 'usdc.svg',
    networkImage: 'polygon.svg',
    stablecoin: true,
  }),
  crypto({ network: 'BSC', gateway: 'BINANCE_COIN', name: 'BNB (BNB Smart Chain)', currency: 'BINANCE_COIN', decimals: 18, image: 'bnb.svg' }),
  crypto({ network: 'LITECOIN', gateway: 'LITECOIN', name: 'Litecoin', currency: 'LITECOIN', decimals: 8, image: 'litecoin.svg' }),
  crypto({ network: 'DOGECOIN', gateway: 'DOGECOIN', name: 'Dogecoin', currency: 'DOGECOIN', decimals: 8, image: 'dogecoin.svg' }),
  crypto({ network: 'BITCOIN_CASH', gateway: 'BITCOIN_CASH', name: 'Bitcoin Cash', currency: 'BITCOIN_CASH', decimals: 8, image: 'bitcoin-cash.svg' }),
  crypto({ network: 'RIPPLE', gateway: 'RIPPLE', name: 'XRP (XRP Ledger)', currency: 'RIPPLE', decimals: 6, image: 'ripple.svg' }),
  card('USD'),
  card('EUR'),
  card('GBP'),
];

const BY_ID = new Map(PROVIDER_CATALOG.map((p) => [p.id, p]));

/**
 * Provider ids are written `prov_<network>_<gateway>`; the interface also shows the spelling
 * `provider_<network>_<gateway>`, which is read as the same provider.
 */
export function canonicalProviderId(id: string): string {
  return id.startsWith('provider_') ? `prov_${id.slice('provider_'.length)}` : id;
}

export function findCatalogProvider(id: string): CatalogProvider | undefined {
  return BY_ID.get(canonicalProviderId(id));
}

export function isCatalogProvider(id: unknown): id is string {
  return typeof id === 'string' && BY_ID.has(canonicalProviderId(id));
}

/** Whether payments through the provider are seen on a chain (crypto) or by a card acquirer (fiat). */
export function paymentKindOf(provider: CatalogProvider): 'crypto' | 'fiat' {
  return provider.type === 'CRYPTOCURRENCY' ? 'crypto' : 'fiat';
}
