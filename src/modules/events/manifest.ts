import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { EventsModule } from './events.module';

/** The events module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'events',
  nestModule: EventsModule,
  uses: [],
  owner: '@integrations-team',
  docs: 'docs/webhooks.md',
} satisfies ModuleManifest;
