import { PAYOUT_ADDRESS_RULES } from './address-rules/payout-address-rules';
import { type ChainsConfig, networkOf, type RailMode } from './domain/chains-config';
import type { PayoutAddressCheck, RailAdapter, TransactionIdCheck } from './domain/payment-rail';
import { anyTransactionId, plainPayoutUri } from './domain/payouts';

/**
 * What refunds ask of a network's payout (the queries of queries/payouts), answered by the network's
 * adapter, or for a network no adapter serves by its address-only rule (address-rules/). Networks are
 * named as the catalog names them or by slug, any case. Nothing here names a family.
 */
export class PayoutFacts {
  private readonly byNetwork: ReadonlyMap<string, RailAdapter>;

  constructor(
    adapters: readonly RailAdapter[],
    private readonly chains: ChainsConfig | null,
  ) {
    this.byNetwork = new Map(adapters.flatMap((a) => a.networks.map((n) => [n, a] as const)));
  }

  /** The network slugs a payer may name a refund address on. */
  networks(): string[] {
    return [...new Set([...this.byNetwork.keys(), ...PAYOUT_ADDRESS_RULES.flatMap((r) => r.networks)])];
  }

  checkAddress(mode: RailMode, network: string, address: string): PayoutAddressCheck {
    const slug = network.toLowerCase();
    const checker = this.byNetwork.get(slug) ?? PAYOUT_ADDRESS_RULES.find((r) => r.networks.includes(slug));
    return checker ? checker.checkPayoutAddress(slug, mode, address) : { ok: false, problem: `refunds are not paid out on ${network}` };
  }

  /** The payout URI; `rail` is the refund's payout rail (its token), null when the mode has none for it. */
  uri(mode: RailMode, network: string, address: string, units: bigint, amount: string, rail: { token: string | null } | null): string | null {
    const slug = network.toLowerCase();
    const adapter = this.byNetwork.get(slug);
    if (!adapter) return plainPayoutUri(slug, address, amount);
    const chain = rail ? (networkOf(this.chains, mode, slug)?.chain ?? null) : null;
    return adapter.payoutUri({ network: slug, chain, address, units, amount, asset: chain === null ? null : rail!.token });
  }

  /** A transaction id in the form of the network's rail in the mode; without a rail, either common form. */
  checkTransactionId(mode: RailMode, network: string, txHash: string): TransactionIdCheck {
    const slug = network.toLowerCase();
    const adapter = networkOf(this.chains, mode, slug) ? this.byNetwork.get(slug) : undefined;
    return adapter ? adapter.checkTransactionId(txHash) : anyTransactionId(txHash);
  }
}
