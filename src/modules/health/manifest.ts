import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { HealthModule } from './health.module';

/** The health module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'health',
  nestModule: HealthModule,
  uses: [],
  owner: '@platform-team',
  docs: 'docs/production.md',
} satisfies ModuleManifest;
