import { viem } from './viem';
import type { PayoutAddressCheck, PayoutUriRequest, TransactionIdCheck } from '../domain/payment-rail';
import { plainPayoutUri } from '../domain/payouts';

/**
 * A payer's refund address on an EVM network: 20 bytes of hex. A mixed-case address must carry a valid
 * EIP-55 checksum (a single mistyped character is caught); an all-lower-case one has none to check and
 * is accepted. The address is kept in its checksummed form. The same on every EVM network and mode.
 */
export function checkEvmPayoutAddress(_network: string, _mode: string, text: string): PayoutAddressCheck {
  const address = text.trim();
  if (!address) return { ok: false, problem: 'must not be empty' };
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) return { ok: false, problem: 'must be 0x followed by 40 hexadecimal digits' };
  if (!viem().isAddress(address, { strict: true })) return { ok: false, problem: 'has a wrong EIP-55 checksum (check every character, or paste it again)' };
  if (/^0x0{40}$/.test(address)) return { ok: false, problem: 'must not be the zero address' };
  return { ok: true, address: viem().getAddress(address) };
}

/**
 * EIP-681 with the chain id and smallest units: `ethereum:<address>@<chain_id>?value=<wei>` for the
 * network's coin, `ethereum:<token>@<chain_id>/transfer?address=<address>&uint256=<units>` for a token.
 * Without a rail (test mode) a plain `<network>:<address>?amount=<coin>`: no wallet sends it.
 */
export function evmPayoutUri({ network, chain, address, units, amount, asset }: PayoutUriRequest): string {
  if (chain === null) return plainPayoutUri(network, address, amount);
  return asset === null
    ? `ethereum:${address}@${chain}?value=${units.toString()}`
    : `ethereum:${asset}@${chain}/transfer?address=${address}&uint256=${units.toString()}`;
}

/** An EVM transaction hash: `0x` and 64 hexadecimal digits. */
export function checkEvmTransactionId(text: string): TransactionIdCheck {
  return /^0x[0-9a-fA-F]{64}$/.test(text) ? { ok: true, id: text.toLowerCase() } : { ok: false, problem: 'must be 0x followed by 64 hexadecimal digits' };
}
