import { Query } from '@nestjs/cqrs';
import type { PreflightCheck } from '../../../../shared/preflight/preflight-check';

/**
 * The rails' go-live checks (`cli doctor`, and once after the service listens): for each network and mode
 * of CHAINS_FILE its adapter's checks of the node (answers, chain, sync, indexes) and the confirmations
 * settings; whether live mode has a network; and each organization's active wallet with the first receive
 * address of its key, for the merchant to compare with their wallet. Never throws for a node.
 */
export class RailsPreflightQuery extends Query<PreflightCheck[]> {
  constructor(
    /** NODE_ENV=production: a missing live network fails instead of warning. */
    readonly production: boolean,
    readonly now: Date = new Date(),
    /** Time each call to a node has to answer, in ms. */
    readonly timeoutMs = 5_000,
    /** Whether to list every organization's active wallet (the CLI does; the run after start-up does not). */
    readonly wallets = true,
  ) {
    super();
  }
}
