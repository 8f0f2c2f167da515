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
} satisfies ModuleManifest;
