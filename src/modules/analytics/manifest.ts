import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { AnalyticsModule } from './analytics.module';
import { loadAnalyticsConfig } from './analytics.config';

/** The analytics module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'analytics',
  nestModule: AnalyticsModule,
  uses: ['providers'],
  owner: '@analytics-team',
  docs: 'docs/analytics.md',
  loadConfig: loadAnalyticsConfig,
} satisfies ModuleManifest;
