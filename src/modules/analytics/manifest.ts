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
  settings: [
    {
      name: 'ANALYTICS_FOLD_SECONDS',
      section: 'Payments and invoices',
      default: '1',
      description:
        "How often the analytics rollups fold the changes writers appended, in seconds (one instance at a time; 0: never, the dashboard still folds its organization's changes before it answers).",
      readme: {
        default: '`1`',
        meaning:
          "How often the analytics rollups fold the changes writers appended (one instance at a time; 0: never, the dashboard still folds its organization's changes before it answers, so it never lags).",
      },
    },
  ],
} satisfies ModuleManifest;
