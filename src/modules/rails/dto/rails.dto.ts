import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { LimitField, OffsetField } from '../../../shared/validation/decorators';
import { CHAIN_FAMILIES, WALLET_NETWORKS } from '../rail-registry';
import { UNMATCHED_STATUSES } from '../domain/unmatched-transfer';

export const HARDHAT_XPUB = 'xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP';

/** A Litecoin account key (m/84'/2'/0') as Trezor and Electrum-LTC export it: P2WPKH ltc1 addresses. */
export const LITECOIN_ZPUB = 'zpub6qa4qbPy1N6DMjqmrsGfEPxxdNCcrqKNuPvWx3SJKykBhdEmSPtgDUiK7s43K8cisLNbiLZcTCtsTmX7afR5WfRMYJ72CrTHRTDRscRS7rW';

/** A Solana wallet address (the Solana Pay specification's example recipient). */
export const SOLANA_WALLET = 'mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN';

export class RegisterWalletRequestDto {
  @ApiProperty({
    enum: CHAIN_FAMILIES,
    example: 'evm',
    description:
      "Chain family the key receives on (evm: Ethereum, Polygon, BNB Smart Chain, one key for all; utxo: Bitcoin, Litecoin, Dogecoin, Bitcoin Cash, one key per network; tron: TRX and USDT on Tron, the account key of m/44'/195'/0'; solana: SOL, USDC and USDT on Solana, the wallet's address)",
  })
  @IsIn([...CHAIN_FAMILIES], { message: `$property must be one of ${CHAIN_FAMILIES.join(', ')}` })
  @IsString()
  chain_family: string;

  @ApiPropertyOptional({
    example: HARDHAT_XPUB,
    maxLength: 400,
    description:
      "BIP32 extended public key at account level (m/44'/60'/0' as wallets export it; m/44'/195'/0' for Tron, whose addresses are base58 T...). Addresses are m/.../0/i of it. " +
      'On UTXO networks also the versions wallets export (xpub/ypub/zpub, tpub/upub/vpub, Ltub/Mtub/ttub, dgub; the version decides ' +
      'P2PKH, P2WPKH-in-P2SH or P2WPKH; CashAddr on Bitcoin Cash) or an output descriptor (wpkh(...), pkh(...), sh(wpkh(...)), with or ' +
      'without its key origin, /0/* and #checksum; a checksum given must match, BIP-380). A private key (xprv..., WIF, hex), a recovery phrase, or a key of another coin or network ' +
      '(a mainnet key in test mode) is refused with 400 and never stored or logged. Required for every family but solana (which takes address).',
  })
  @IsOptional()
  @MaxLength(400)
  @IsString()
  xpub?: string;

  @ApiPropertyOptional({
    example: SOLANA_WALLET,
    maxLength: 100,
    description:
      "The wallet's address, for chain_family solana (required there, instead of xpub; not taken for the other families): a base58 " +
      'ed25519 public key on the curve, as the wallet shows it. A token account (off the curve), a secret key or a recovery phrase is refused with 400.',
  })
  @IsOptional()
  @MaxLength(100)
  @IsString()
  address?: string;

  @ApiPropertyOptional({
    enum: WALLET_NETWORKS,
    example: 'litecoin',
    description: 'The network a utxo key receives on (required for chain_family utxo; not taken for evm or tron)',
  })
  @IsOptional()
  @IsIn([...WALLET_NETWORKS], { message: `$property must be one of ${WALLET_NETWORKS.join(', ')}` })
  @IsString()
  network?: string;
}

export class ListWalletsQueryDto {
  @LimitField() limit?: number;
  @OffsetField() offset?: number;
}

export class PaymentAddressRequestDto {
  @ApiProperty({
    example: 'prov_ethereum_usdt',
    description:
      'A chain provider of GET /providers/{invoice_id}: prov_ethereum_ethereum, prov_ethereum_usdt, prov_ethereum_usdc, prov_polygon_polygon, prov_polygon_usdc_native, prov_bsc_binance_coin, prov_bitcoin_bitcoin, prov_litecoin_litecoin, prov_dogecoin_dogecoin, prov_bitcoin_cash_bitcoin_cash',
  })
  @Length(1, 100)
  @IsString()
  provider_id: string;
}

export class WalletDto {
  @ApiProperty({ example: 'wallet_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' }) id: string;
  @ApiProperty({ enum: CHAIN_FAMILIES, example: 'evm' }) chain_family: string;
  @ApiProperty({
    example: null,
    nullable: true,
    type: String,
    description: 'The network a utxo wallet receives on (bitcoin, litecoin, dogecoin, bitcoin_cash); null for an evm wallet (all EVM networks)',
  })
  network: string | null;
  @ApiProperty({
    example: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    description: 'Address at index 0 of the receive chain: compare it with the first address your wallet shows',
  })
  first_address: string;
  @ApiProperty({
    example: true,
    description: 'New deposit addresses come from this wallet (one active per organization, mode and family; registering another replaces it)',
  })
  active: boolean;
  @ApiProperty({
    example: 3,
    description:
      "Addresses handed out from this wallet's key so far, by any wallet of the key (receive indexes 0 to addresses_issued - 1; raise your wallet's address gap limit past it)",
  })
  addresses_issued: number;
  @ApiProperty({
    example: 3,
    description:
      'Addresses issued after the last one that received money (all of them while none did). Past 20 a wallet app scanning the default gap may not show new payments: a wallet.gap_warning event is sent when it first exceeds 20',
  })
  unused_gap: number;
  @ApiProperty({ example: '2026-11-21 10:00:00' }) created_at: string;
  @ApiProperty({ example: null, nullable: true, type: String, description: 'When another wallet replaced it' }) replaced_at: string | null;
}

export class WalletListDto {
  @ApiProperty({ type: [WalletDto] }) items: WalletDto[];
  @ApiProperty({ example: 1 }) total: number;
  @ApiProperty({ example: 20 }) limit: number;
  @ApiProperty({ example: 0 }) offset: number;
  @ApiProperty({ example: false }) has_more: boolean;
}

export class DeletedWalletDto {
  @ApiProperty({ example: 'wallet_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00' }) id: string;
  @ApiProperty({ example: true }) deleted: boolean;
}

export class PaymentAddressDto {
  @ApiProperty({ example: 'prov_ethereum_usdt' }) provider_id: string;
  @ApiProperty({ example: 'ETHEREUM' }) network: string;
  @ApiProperty({ example: 'USDT' }) currency: string;
  @ApiProperty({
    example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    description:
      "Deposit address in the chain's form (EIP-55 on EVM chains; bech32, base58 or CashAddr on UTXO chains), the same for the same invoice and provider",
  })
  address: string;
  @ApiProperty({
    example: '25.494902000000000000000000000000',
    description:
      "Still due through this provider at the invoice's locked rates (payments completed or waiting for confirmations deducted), rounded up to `decimals`",
  })
  amount: string;
  @ApiProperty({ example: 6 }) decimals: number;
  @ApiProperty({ example: 1, nullable: true, type: Number, description: 'EVM chain id (on Tron, the chain id its JSON-RPC answers); null on UTXO chains' })
  chain_id: number | null;
  @ApiProperty({
    example: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
    nullable: true,
    type: String,
    description: "Token contract; null for the network's coin",
  })
  contract_address: string | null;
  @ApiProperty({
    example: null,
    nullable: true,
    type: String,
    description:
      "Solana: the payment's reference key (base58; a fresh one per invoice and provider, never reused). The wallet in `address` receives " +
      'every payment; a payment counts for this invoice when its transaction carries this key (the uri adds it; a wallet paying by hand cannot). Null on other chains',
  })
  reference: string | null;
  @ApiProperty({
    example: 'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=25494902',
    nullable: true,
    type: String,
    description:
      "Payment request for wallet apps (QR code): EIP-681 on EVM chains (native: ethereum:<address>@<chain_id>?value=<wei>); BIP21 on UTXO chains (litecoin:<address>?amount=<coin>, with the network's scheme); a Solana Pay transfer request on Solana (solana:<wallet>?amount=<coin>&spl-token=<mint>&reference=<reference>&message=...); null on Tron, which has no payment-URI standard (show the address, the amount and a QR code of the address)",
  })
  uri: string | null;
  @ApiProperty({ example: '2026-11-21 10:15:00', nullable: true, type: String, description: "When the invoice's rates stop holding" }) expires_at:
    string | null;
}

export const WALLET_EXAMPLE = {
  id: 'wallet_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
  chain_family: 'evm',
  network: null,
  first_address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  active: true,
  addresses_issued: 0,
  unused_gap: 0,
  created_at: '2026-11-21 10:00:00',
  replaced_at: null,
};

export const PAYMENT_ADDRESS_EXAMPLE = {
  provider_id: 'prov_ethereum_usdt',
  network: 'ETHEREUM',
  currency: 'USDT',
  address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  amount: '25.494902000000000000000000000000',
  decimals: 6,
  chain_id: 1,
  contract_address: '0xdAC17F958D2ee523a2206206994597C13D831ec7',
  reference: null,
  uri: 'ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=25494902',
  expires_at: '2026-11-21 10:15:00',
};

export class ListUnmatchedTransfersQueryDto {
  @ApiPropertyOptional({ enum: UNMATCHED_STATUSES, example: 'OPEN', description: 'OPEN: no payment records it yet; RESOLVED: a retry recorded it' })
  @IsOptional()
  @IsIn([...UNMATCHED_STATUSES], { message: `$property must be one of ${UNMATCHED_STATUSES.join(', ')}` })
  @IsString()
  status?: string;

  @ApiPropertyOptional({
    description:
      'Cursor pagination: the transfers after this id (the last item of the previous page). 400 when the id is not an unmatched transfer of ' +
      "the caller's organization and mode.",
    example: 'unmatched_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e10',
  })
  @IsOptional()
  @Length(1, 200)
  @IsString()
  starting_after?: string;

  @LimitField() limit?: number;
  @OffsetField() offset?: number;
}

const TX_HASH_EXAMPLE = '0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071';

export class UnmatchedTransferDto {
  @ApiProperty({ example: 'unmatched_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e10' }) id: string;
  @ApiProperty({ enum: UNMATCHED_STATUSES, example: 'OPEN', description: 'OPEN: no payment records it; RESOLVED: a retry recorded it as payment_id' })
  status: string;
  @ApiProperty({
    example: 'provider_disabled',
    description:
      'Why the payments module refused it the last time: provider_disabled (the provider was disabled after the address was handed out), ' +
      'invoice_not_found, validation_failed, invalid_state_transition, ...; no_known_reference: money that reached your Solana wallet in a ' +
      'transaction without a reference of a payment address this service handed out (sent by hand, from an exchange), so no invoice is ' +
      'known (invoice_id null; it cannot be retried); several_references: money to your Solana wallet in a transaction naming the ' +
      'references of more than one payment address (which invoice it pays cannot be told; invoice_id null, it cannot be retried)',
  })
  reason_code: string;
  @ApiProperty({ example: 'Invalid request: provider_id provider prov_ethereum_usdt is disabled for this organization' }) reason: string;
  @ApiProperty({
    example: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
    nullable: true,
    type: String,
    description: 'The invoice the deposit address was handed out for; null when no invoice is known (reason_code no_known_reference)',
  })
  invoice_id: string | null;
  @ApiProperty({ example: 'prov_ethereum_usdt', description: 'The provider of what was sent (the coin or the token)' }) provider_id: string;
  @ApiProperty({ example: 'ETHEREUM' }) network: string;
  @ApiProperty({ example: 'USDT' }) currency: string;
  @ApiProperty({ example: '25.494902000000000000000000000000', description: "What arrived, in the provider's currency" }) amount: string;
  @ApiProperty({
    example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    description: 'The deposit address that received it (on Solana, the wallet: payments to it are told apart by their reference)',
  })
  address: string;
  @ApiProperty({ example: TX_HASH_EXAMPLE }) tx_hash: string;
  @ApiProperty({ example: 3, nullable: true, type: Number, description: "Index of the token's Transfer log in its block; null for the network's coin" })
  log_index: number | null;
  @ApiProperty({ example: 21000123 }) block_number: number;
  @ApiProperty({
    example: `ethereum:${TX_HASH_EXAMPLE}:3`,
    description:
      'The idempotency key of the payment it becomes: <network>:<tx_hash>:<log_index|native> (Solana: solana:<signature>:<reference>; ' +
      'without an invoice solana:<signature>:<wallet>:<mint|native>, which keeps it once)',
  })
  idempotency_key: string;
  @ApiProperty({
    example: false,
    description:
      'A chain reorganization took its block away (on Solana: the node no longer knows its confirmed transaction, its fork dropped): ' +
      'it cannot be retried until the watcher finds it again',
  })
  in_doubt: boolean;
  @ApiProperty({ example: 1, description: 'Times the payment was asked for (the watcher, then each retry)' }) attempts: number;
  @ApiProperty({ example: null, nullable: true, type: String, description: 'The payment a retry recorded' }) payment_id: string | null;
  @ApiProperty({ example: '2026-11-21 10:04:58', description: "The block's time as the chain reports it" }) happened_at: string;
  @ApiProperty({ example: '2026-11-21 10:05:01', description: 'When the watcher first kept it' }) created_at: string;
  @ApiProperty({ example: '2026-11-21 10:05:01' }) updated_at: string;
  @ApiProperty({ example: null, nullable: true, type: String }) resolved_at: string | null;
}

export class UnmatchedTransferListDto {
  @ApiProperty({ type: [UnmatchedTransferDto] }) items: UnmatchedTransferDto[];
  @ApiProperty({ example: 1 }) total: number;
  @ApiProperty({ example: 20 }) limit: number;
  @ApiProperty({ example: 0 }) offset: number;
  @ApiProperty({ example: false }) has_more: boolean;
}

export const UNMATCHED_TRANSFER_EXAMPLE = {
  id: 'unmatched_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e10',
  status: 'OPEN',
  reason_code: 'provider_disabled',
  reason: 'Invalid request: provider_id provider prov_ethereum_usdt is disabled for this organization',
  invoice_id: 'invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00',
  provider_id: 'prov_ethereum_usdt',
  network: 'ETHEREUM',
  currency: 'USDT',
  amount: '25.494902000000000000000000000000',
  address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  tx_hash: TX_HASH_EXAMPLE,
  log_index: 3,
  block_number: 21000123,
  idempotency_key: `ethereum:${TX_HASH_EXAMPLE}:3`,
  in_doubt: false,
  attempts: 1,
  payment_id: null,
  happened_at: '2026-11-21 10:04:58',
  created_at: '2026-11-21 10:05:01',
  updated_at: '2026-11-21 10:05:01',
  resolved_at: null,
};

export const UNMATCHED_TRANSFER_RESOLVED_EXAMPLE = {
  ...UNMATCHED_TRANSFER_EXAMPLE,
  status: 'RESOLVED',
  attempts: 2,
  payment_id: 'payment_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01',
  updated_at: '2026-11-21 11:30:00',
  resolved_at: '2026-11-21 11:30:00',
};

/** Money that reached a Solana wallet without a known reference: kept with no invoice, never retried. */
export const UNMATCHED_TRANSFER_WITHOUT_INVOICE_EXAMPLE = {
  ...UNMATCHED_TRANSFER_EXAMPLE,
  id: 'unmatched_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e11',
  reason_code: 'no_known_reference',
  reason:
    'The transaction carries no reference of a payment address this service handed out for the wallet (sent by hand, from an exchange, ' +
    'or with another reference), so no invoice is known: it is kept here and not recorded as a payment.',
  invoice_id: null,
  provider_id: 'prov_solana_usdc',
  network: 'SOLANA',
  currency: 'USDC',
  amount: '12.345678000000000000000000000000',
  address: 'HXtBm8XZbxaTt41uqaKhwUAa6Z1aPyvJdsZVENiWsetg',
  tx_hash: '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW',
  log_index: null,
  block_number: 372104517,
  idempotency_key:
    'solana:5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW:HXtBm8XZbxaTt41uqaKhwUAa6Z1aPyvJdsZVENiWsetg:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
};
