import { ApiProperty } from '@nestjs/swagger';
import { CURRENCIES } from '../../../shared/money/currency';

class AvailableProviderMetadataDto {
  @ApiProperty({ type: 'integer', example: 6 }) decimals: number;
  @ApiProperty({ example: '0xdAC17F958D2ee523a2206206994597C13D831ec7', description: "Token contract (mainnet); '' for native coins and fiat" })
  contract_address: string;
  @ApiProperty({ example: 'https://pay.example.com/assets/providers/usdt.svg' }) image_url: string;
  @ApiProperty({ example: 'https://pay.example.com/assets/providers/ethereum.svg' }) image_url_network: string;
  @ApiProperty({ type: 'integer', example: 12, description: 'Confirmations the payment needs before the invoice counts it (0 for fiat)' })
  required_confirmations: number;
}

export class AvailableProviderDto {
  @ApiProperty({ example: 'prov_ethereum_usdt' }) id: string;
  @ApiProperty({ enum: ['CRYPTO', 'FIAT'] }) provider: string;
  @ApiProperty({ example: 'ETHEREUM' }) network: string;
  @ApiProperty({ example: 'USDT' }) gateway: string;
  @ApiProperty({ enum: ['native', 'token', 'card'], description: "native: the network's own coin; token: a contract on the network; card: card acquiring" })
  type: string;
  @ApiProperty({ type: [String], example: ['CRYPTO', 'TOKEN', 'STABLECOIN', 'ETHEREUM'] }) filters: string[];
  @ApiProperty({ type: AvailableProviderMetadataDto }) metadata: AvailableProviderMetadataDto;
  @ApiProperty({ example: 'Tether USD (Ethereum, ERC-20)' }) name: string;
  @ApiProperty({ enum: CURRENCIES, enumName: 'Currency' }) currency: string;
  @ApiProperty({
    type: String,
    nullable: true,
    pattern: '^\\d+\\.\\d{30}$',
    description:
      "Amount to send through this provider to cover the invoice's price_usd, rounded up to its decimals: at the invoice's own rates while " +
      'its rate lock holds (until expires_at), then at the rates in force. null in live mode with live rate sources once the lock has lapsed ' +
      "and this currency's rate is older than RATES_MAX_AGE_SECONDS (a payment address would answer 503 rates_unavailable then); " +
      'ask again once the sources answer.',
  })
  price: string | null;
  @ApiProperty({
    example: true,
    description:
      'A chain rail carries it in this mode: POST /invoices/{id}/payment_address gives a deposit address for it (its network is configured in CHAINS_FILE, ' +
      "with the token's contract, and the organization has an active receiving wallet for it). Always true in live mode, where only such providers are " +
      'listed; in test mode false for the others, which the checkout pays with POST /invoices/{id}/test_payment.',
  })
  has_rail: boolean;
}

export class InvoiceProvidersDto {
  @ApiProperty({ type: [AvailableProviderDto] }) providers: AvailableProviderDto[];
  @ApiProperty({ example: '2026-11-20 00:00:00', description: 'Time of the rates snapshot used for price' }) exchange_rate_timestamp: string;
}

export const INVOICE_PROVIDERS_EXAMPLE = {
  providers: [
    {
      id: 'prov_ethereum_usdt',
      provider: 'CRYPTO',
      network: 'ETHEREUM',
      gateway: 'USDT',
      type: 'token',
      filters: ['CRYPTO', 'TOKEN', 'STABLECOIN', 'ETHEREUM'],
      metadata: {
        decimals: 6,
        contract_address: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
        required_confirmations: 12,
        image_url: 'https://pay.example.com/assets/providers/usdt.svg',
        image_url_network: 'https://pay.example.com/assets/providers/ethereum.svg',
      },
      name: 'Tether USD (Ethereum, ERC-20)',
      currency: 'USDT',
      price: '25.494902000000000000000000000000',
      has_rail: true,
    },
    {
      id: 'prov_bitcoin_bitcoin',
      provider: 'CRYPTO',
      network: 'BITCOIN',
      gateway: 'BITCOIN',
      type: 'native',
      filters: ['CRYPTO', 'NATIVE', 'BITCOIN'],
      metadata: {
        decimals: 8,
        contract_address: '',
        required_confirmations: 2,
        image_url: 'https://pay.example.com/assets/providers/bitcoin.svg',
        image_url_network: 'https://pay.example.com/assets/providers/bitcoin.svg',
      },
      name: 'Bitcoin',
      currency: 'BITCOIN',
      price: '0.000279460000000000000000000000',
      has_rail: false,
    },
  ],
  exchange_rate_timestamp: '2026-11-20 00:00:00',
};
