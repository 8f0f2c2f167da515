import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { PayoutTransferSeen } from '../rails';
import { heldNames, pickTransfers } from './domain/payout-verdict';
import { type PayoutHolder, PayoutTransfersRepository, recipientKey } from './persistence/payout-transfers.repository';

/** A unique violation: another payout took the same transfer in a transaction that committed first. */
export function transferRace(e: unknown): boolean {
  const code = (e as { driverError?: { code?: string }; code?: string }).driverError?.code ?? (e as { code?: string }).code;
  return code === '23505';
}

/**
 * Each transfer pays at most one payout (decisions §19, "Once"): a payout takes the transfers that pay
 * it when they are shown to (a mined transaction that pays the destination enough after the claim),
 * never on a bare report, so a report that pays nothing holds nothing.
 */
@Injectable()
export class PayoutTransfers {
  constructor(@Inject(PayoutTransfersRepository) private readonly transfers: PayoutTransfersRepository) {}

  /**
   * In the caller's unit of work: the payout holds transfers of `txHash` worth its units (true), or
   * false when the free ones fall short. A payout that holds some already keeps them.
   */
  async take(m: EntityManager, payout: PayoutHolder, units: string, txHash: string, seen: readonly PayoutTransferSeen[], now: Date): Promise<boolean> {
    await this.transfers.lockTransaction(m, payout.network, txHash);
    const held = await this.transfers.held(m, payout.network, txHash);
    if (held.some((h) => h.refund_id === payout.id)) return true;
    // Only transfers held for this asset to this address can be among `seen` (a transfer has one recipient);
    // rows from before recipients were kept (null) are taken as they are. A row still names its transfer
    // when a transfer to the address has that name and the units it held. One that does not (a reorg
    // renumbered the block's logs: its name is gone, or now names another transfer) still holds one of
    // them: the first free one of its units, else the first free one.
    // Recipients compare by destination: one spelling of an address cannot take an output held under another.
    const ours = held.filter((h) => h.recipient === null || recipientKey(payout.network, h.recipient) === payout.recipient);
    const named = (h: (typeof held)[number]) =>
      h.recipient === null || seen.some((t) => (t.output === h.output || t.formerly === h.output) && BigInt(t.units) === BigInt(h.units));
    const renamed = ours.filter((h) => !named(h)).map((h) => h.units);
    const picked = pickTransfers(seen, heldNames(ours.filter(named)), units, renamed);
    if (!picked) return false;
    await this.transfers.hold(m, payout, txHash, picked, now);
    return true;
  }

  release(m: EntityManager, payoutId: string): Promise<void> {
    return this.transfers.release(m, payoutId);
  }
}
