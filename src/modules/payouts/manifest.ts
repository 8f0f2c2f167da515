import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { PayoutsModule } from './payouts.module';
import { loadPayoutsConfig } from './payouts.config';

/** The payouts module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'payouts',
  nestModule: PayoutsModule,
  uses: ['rails', 'providers', 'invoices'],
  owner: '@payments-team',
  docs: 'docs/payouts.md',
  loadConfig: loadPayoutsConfig,
  settings: [
    {
      name: 'REFUND_CHECK_SECONDS',
      section: 'Payments and invoices',
      default: '5',
      description: "How often refunds' reported payouts are checked on their chain and unclaimed refunds expired, in seconds (0: never)",
      readme: {
        default: '`5`',
        meaning:
          "How often each instance checks refunds' reported payouts on their chain (confirmations to COMPLETED) and expires unclaimed refunds (0: never).",
      },
    },
    {
      name: 'REFUND_TX_GRACE_SECONDS',
      section: 'Payments and invoices',
      default: '600',
      description: "Seconds a reported refund payout may stay out of the node's sight (dropped unmined) before the refund waits for a payout again.",
      readme: {
        default: '`600`',
        meaning:
          "How long a SENT refund's transaction may be out of the node's sight (dropped unmined, or not yet known on a chain without mempool queries) before the refund goes back to AWAITING_PAYOUT (it may then be canceled).",
      },
    },
  ],
} satisfies ModuleManifest;
