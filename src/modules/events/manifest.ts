import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { EventsModule } from './events.module';
import { loadEventsConfig } from './events.config';

/** The events module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'events',
  nestModule: EventsModule,
  uses: [],
  owner: '@integrations-team',
  docs: 'docs/webhooks.md',
  loadConfig: loadEventsConfig,
  settings: [
    {
      name: 'EVENTS_RETENTION_DAYS',
      section: 'Webhooks',
      default: '90',
      description: 'Days of events kept (0: all); a month is kept while a durable handler has not read it or a webhook delivery of it is kept.',
      readme: {
        default: '`90`',
        meaning:
          'Days of events kept (0 to 36500; 0 keeps them all). Events are partitioned by the month of their id; the retention job (`PARTITION_RETENTION_SECONDS`) drops a month this many days after it ended, but never while a durable handler (the webhook fan-out, the subscriptions\' reaction) has not read every event in it, nor while a webhook delivery of one of its events is kept. `POST /events` lists what is kept. See docs/performance.md, "Tables that stay small".',
      },
    },
  ],
} satisfies ModuleManifest;
