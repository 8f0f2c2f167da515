import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { WebhooksModule } from './webhooks.module';
import { loadWebhooksConfig } from './webhooks.config';
import { WEBHOOK_ENDPOINT_EVENT_TYPES } from './events/webhook-endpoint.events';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['webhook', 'delivery', 'attempt'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The webhooks module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'webhooks',
  nestModule: WebhooksModule,
  uses: ['events'],
  owner: '@integrations-team',
  docs: 'docs/webhooks.md',
  loadConfig: loadWebhooksConfig,
  idKinds: ID_KINDS,
  events: [...WEBHOOK_ENDPOINT_EVENT_TYPES],
  settings: [
    {
      name: 'WEBHOOK_DISPATCHER',
      section: 'Webhooks',
      default: 'true',
      description: 'Send webhook deliveries from this process (several instances may share one database).',
      readme: {
        default: '`true`',
        meaning: 'Send webhook deliveries from this process (several instances may share one database).',
      },
    },
    {
      name: 'WEBHOOK_DISPATCH_INTERVAL_MS',
      section: 'Webhooks',
      default: '1000',
      description: 'How often due deliveries are looked for, in milliseconds.',
      readme: {
        default: '`1000`',
        meaning: 'How often due webhook deliveries are looked for.',
      },
    },
    {
      name: 'WEBHOOK_DISPATCH_BATCH',
      section: 'Webhooks',
      default: '20',
      description:
        "Deliveries one pass claims and sends per instance; an instance has at most four times that in flight, and an organization's mode gets no more claimed while this many of its own are.",
      readme: {
        default: '`20`',
        meaning:
          "Deliveries one pass claims and sends per instance (1 to 500). A pass waits for their answers at most a second; an instance has at most four times this many in flight, and an organization's mode gets no more claimed there while this many of its own are, so a slow endpoint holds only its own.",
      },
    },
    {
      name: 'WEBHOOK_TIMEOUT_MS',
      section: 'Webhooks',
      default: '10000',
      description: 'Time allowed for one delivery attempt, in milliseconds.',
      readme: {
        default: '`10000`',
        meaning: 'Time allowed for one delivery attempt.',
      },
    },
    {
      name: 'WEBHOOK_RETRY_SCHEDULE',
      section: 'Webhooks',
      default: '5s,5m,30m,2h,5h,10h,10h',
      description: 'Waits before each retry (units ms, s, m, h, d), each varied by +-10%.',
      readme: {
        default: '`5s,5m,30m,2h,5h,10h,10h`',
        meaning: 'Waits before each retry (8 attempts over about a day), each varied by ±10%.',
      },
    },
    {
      name: 'WEBHOOK_DISABLE_AFTER_FAILURES',
      section: 'Webhooks',
      default: '5',
      description: 'Disable an endpoint after this many deliveries in a row failed every attempt (0: never).',
      readme: {
        default: '`5`',
        meaning: 'Deliveries in a row that failed every attempt before an endpoint is disabled (0: never).',
      },
    },
    {
      name: 'WEBHOOK_ALLOW_PRIVATE',
      section: 'Webhooks',
      default: '',
      description: 'Allow webhook URLs on plain http and private addresses; unset: false in production, true otherwise.',
      readme: {
        default: '`false` in production, else `true`',
        meaning: 'Allow webhook URLs on plain http or private, loopback and link-local addresses.',
      },
    },
    {
      name: 'WEBHOOK_DNS_SERVERS',
      section: 'Webhooks',
      default: '',
      description: 'Name servers asked for webhook endpoint hosts while the address guard is on (IP[:port], comma-separated); empty: the system resolvers.',
      readme: {
        default: 'empty (the system resolvers)',
        meaning:
          'Name servers asked for endpoint hosts while the address guard is on, each `IP` or `IP:port` (`[IPv6]:port`). Queries run on the event loop with their own timeout (1.5 s, tried twice), never on the thread pool.',
      },
    },
    {
      name: 'WEBHOOK_DELIVERIES_RETENTION_DAYS',
      section: 'Webhooks',
      default: '90',
      description: 'Days of webhook deliveries and their attempts kept (0: all); a month holding a pending delivery is kept until it ends.',
      readme: {
        default: '`90`',
        meaning:
          'Days of webhook deliveries and attempts kept (0 to 36500; 0 keeps them all). They are partitioned by the month of their event\'s id; the retention job (`PARTITION_RETENTION_SECONDS`) drops a month this many days after it ended, but never while a delivery in it is still pending (waiting for a retry, or a redelivery asked for). The events they carry are kept at least as long. See docs/performance.md, "Tables that stay small".',
      },
    },
  ],
} satisfies ModuleManifest;
