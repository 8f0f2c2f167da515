import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { PayoutsModule } from './payouts.module';

/** The payouts module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'payouts',
  nestModule: PayoutsModule,
  uses: ['rails', 'providers', 'invoices'],
  owner: '@payments-team',
  docs: 'docs/payouts.md',
} satisfies ModuleManifest;
