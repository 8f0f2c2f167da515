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
  settings: [
    {
      name: 'SUBSCRIPTIONS_TICK_SECONDS',
      section: 'Payments and invoices',
      default: '5',
      description: "How often each instance's subscription scheduler issues due period invoices and follows their payment, in seconds (0: never).",
      readme: {
        default: '`5`',
        meaning:
          "How often each instance's subscription scheduler issues due period invoices and follows their payment (0: never). See `docs/subscriptions.md`.",
      },
    },
    {
      name: 'SUBSCRIPTION_INVOICE_EXPIRY_MINUTES',
      section: 'Payments and invoices',
      default: '10080',
      description: "How long a subscription's period invoice waits for payment before it expires, in minutes (5 to 43200).",
      readme: {
        default: '`10080`',
        meaning:
          "How long a subscription's period invoice waits for payment before it expires (5 to 43200; then, after `INVOICE_MONITORING_MINUTES`, it is VOIDED and counts as unpaid).",
      },
    },
  ],
} satisfies ModuleManifest;
