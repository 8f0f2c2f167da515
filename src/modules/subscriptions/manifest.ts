import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { SubscriptionsModule } from './subscriptions.module';
import { loadSubscriptionsConfig } from './subscriptions.config';
import { SUBSCRIPTION_EVENT_TYPES, SUBSCRIPTION_INVOICE_FAILURE_EVENT_TYPES } from './events/subscription.events';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['subscription'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The subscriptions module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'subscriptions',
  nestModule: SubscriptionsModule,
  uses: ['invoices', 'products', 'rates', 'analytics'],
  owner: '@invoicing-team',
  docs: 'docs/subscriptions.md',
  loadConfig: loadSubscriptionsConfig,
  idKinds: ID_KINDS,
  events: [...SUBSCRIPTION_EVENT_TYPES, ...SUBSCRIPTION_INVOICE_FAILURE_EVENT_TYPES],
} satisfies ModuleManifest;
