import { CURRENCIES } from '../../../shared/money/currency';
import { Money } from '../../../shared/money/money';
import { amountDue } from './amount-due';
import { canonicalProviderId, findCatalogProvider, isCatalogProvider, PROVIDER_CATALOG } from './catalog';
import { PROVIDER_IMAGES } from '../assets/provider-images';

describe('provider catalog', () => {
  it('has unique ids of the form prov_<network>_<gateway>', () => {
    const ids = PROVIDER_CATALOG.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of PROVIDER_CATALOG) {
      expect(p.id).toBe(`prov_${p.network.toLowerCase()}_${p.gateway.toLowerCase()}`);
      expect(p.id).toMatch(/^prov_[a-z0-9_]+$/);
    }
  });

  it('covers the networks and gateways of the product decisions', () => {
    for (const id of [
      'prov_bitcoin_bitcoin',
      'prov_ethereum_ethereum',
      'prov_ethereum_usdt',
      'prov_ethereum_usdc',
      'prov_tron_tron',
      'prov_tron_usdt',
      'prov_solana_solana',
      'prov_solana_usdc',
      'prov_polygon_polygon',
      'prov_bsc_binance_coin',
      'prov_litecoin_litecoin',
      'prov_dogecoin_dogecoin',
      'prov_bitcoin_cash_bitcoin_cash',
      'prov_ripple_ripple',
    ])
      expect(findCatalogProvider(id)?.type).toBe('CRYPTOCURRENCY');
    expect(PROVIDER_CATALOG.filter((p) => p.type === 'FIAT').map((p) => p.currency)).toEqual(['USD', 'EUR', 'GBP']);
  });

  it.each([
    ['prov_ethereum_usdt', 'USDT', 6, '0xdAC17F958D2ee523a2206206994597C13D831ec7'],
    ['prov_ethereum_usdc', 'USDC', 6, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'],
    ['prov_tron_usdt', 'USDT', 6, 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'],
    ['prov_solana_usdc', 'USDC', 6, 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'],
    ['prov_bitcoin_bitcoin', 'BITCOIN', 8, ''],
    ['prov_ethereum_ethereum', 'ETHEREUM', 18, ''],
    ['prov_solana_solana', 'SOLANA', 9, ''],
  ])('%s is paid in %s with %i decimals at contract "%s"', (id, currency, decimals, contract) => {
    expect(findCatalogProvider(id)).toMatchObject({ currency, decimals, contractAddress: contract });
  });

  it('uses known currencies and ships an image for every provider', () => {
    for (const p of PROVIDER_CATALOG) {
      expect(CURRENCIES).toContain(p.currency);
      expect(PROVIDER_IMAGES[p.image]).toContain('<svg');
      expect(PROVIDER_IMAGES[p.networkImage]).toContain('<svg');
      expect(p.kind === 'token').toBe(p.contractAddress !== '');
    }
  });
});

describe('provider id spellings', () => {
  it('reads provider_<network>_<gateway> as prov_<network>_<gateway>', () => {
    expect(canonicalProviderId('provider_ethereum_usdt')).toBe('prov_ethereum_usdt');
    expect(canonicalProviderId('prov_ethereum_usdt')).toBe('prov_ethereum_usdt');
    expect(findCatalogProvider('provider_tron_usdt')?.id).toBe('prov_tron_usdt');
    expect(isCatalogProvider('provider_nowhere')).toBe(false);
    expect(isCatalogProvider(42)).toBe(false);
  });
});

describe('amountDue', () => {
  it.each([
    ['100', '1.0002', 6, '99.980004'],
    ['100', '1', 2, '100'],
    ['10.001', '1', 2, '10.01'],
    ['91250.42', '91250.42', 8, '1'],
    ['1', '3046.18', 18, '0.000328280009717089'],
  ])('%s USD at rate %s with %i decimals is %s', (usd, rate, decimals, expected) => {
    expect(amountDue(new Money(usd), new Money(rate), decimals).toFixed()).toBe(expected);
  });
});

describe('required confirmations', () => {
  it.each([
    ['prov_bitcoin_bitcoin', 2],
    ['prov_ethereum_ethereum', 12],
    ['prov_ethereum_usdt', 12],
    ['prov_ethereum_usdc', 12],
    ['prov_tron_tron', 19],
    ['prov_tron_usdt', 19],
    ['prov_solana_solana', 32],
    ['prov_solana_usdc', 32],
    ['prov_polygon_polygon', 64],
    ['prov_bsc_binance_coin', 15],
    ['prov_litecoin_litecoin', 6],
    ['prov_dogecoin_dogecoin', 40],
    ['prov_bitcoin_cash_bitcoin_cash', 6],
    ['prov_ripple_ripple', 1],
    ['prov_card_usd', 0],
  ])('%s needs %i', (id, count) => {
    expect(findCatalogProvider(id)?.requiredConfirmations).toBe(count);
  });

  it('every crypto provider needs at least one confirmation and fiat none', () => {
    for (const p of PROVIDER_CATALOG) {
      if (p.type === 'FIAT') expect(p.requiredConfirmations).toBe(0);
      else expect(p.requiredConfirmations).toBeGreaterThanOrEqual(1);
    }
  });
});
