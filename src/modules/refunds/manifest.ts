import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { RefundsModule } from './refunds.module';
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
  idKinds: ID_KINDS,
  events: [...REFUND_EVENT_TYPES],
} satisfies ModuleManifest;
