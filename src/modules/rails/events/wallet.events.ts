import { DomainEvent } from '../../../shared/events/domain-event';
import { declareEvents } from '../../../shared/events/event-types';
import type { WalletView } from '../dto/wallet.views';

/**
 * The wallets' events, published after commit: `wallet.gap_warning`, sent once when a wallet's
 * `unused_gap` first passes the gap wallet apps scan by default (`gap_limit`, 20), so the merchant can
 * raise their wallet app's gap limit before payments to newer addresses go unseen there.
 */
export const WALLET_EVENT_TYPES = ['wallet.gap_warning'] as const;
export type WalletEventType = (typeof WALLET_EVENT_TYPES)[number];

export class WalletEvent extends DomainEvent<WalletEventType, WalletView & { gap_limit: number }> {}

/** Its event definitions by type name, which its writers hand `EventOutbox.record` (the object's type is checked). */
export const WALLET_EVENTS = declareEvents(WalletEvent, WALLET_EVENT_TYPES);
