import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { PaymentsModule } from './payments.module';
import { PAYMENT_EVENT_TYPES } from './events/payment.events';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['payment'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The payments module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'payments',
  nestModule: PaymentsModule,
  uses: ['invoices', 'providers', 'rates'],
  owner: '@payments-team',
  docs: 'docs/payments.md',
  idKinds: ID_KINDS,
  events: [...PAYMENT_EVENT_TYPES],
} satisfies ModuleManifest;
