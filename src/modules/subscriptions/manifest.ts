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
    {
      name: 'USAGE_EVENTS_RETENTION_DAYS',
      section: 'Payments and invoices',
      default: '400',
      description: 'Days of usage events kept (0: all); a month a period invoice still to be issued needs is kept until it is issued.',
      readme: {
        default: '`400`',
        meaning:
          'Days of usage events kept (0 to 36500; 0 keeps them all). Usage events are partitioned by the month of their `timestamp`; the retention job (`PARTITION_RETENTION_SECONDS`) drops a month this many days after it ended, but never while a subscription still to invoice a period (one not issued yet, or one whose invoice failed and is retried) has usage in it. Event ids stay known after their month is dropped, so a repeat is still answered as a repeat. See docs/performance.md, "Tables that stay small".',
      },
    },
  ],
} satisfies ModuleManifest;
