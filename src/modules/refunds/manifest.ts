import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { RefundsModule } from './refunds.module';
import { loadRefundsConfig } from './refunds.config';
import { REFUND_EVENT_TYPES } from './events/refund.events';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['refund'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The refunds module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'refunds',
  nestModule: RefundsModule,
  uses: ['invoices', 'payments', 'providers', 'rates', 'payouts', 'analytics'],
  owner: '@payments-team',
  docs: 'docs/refunds.md',
  loadConfig: loadRefundsConfig,
  idKinds: ID_KINDS,
  events: [...REFUND_EVENT_TYPES],
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
