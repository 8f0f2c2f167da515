import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { ProvidersModule } from './providers.module';

/** The providers module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'providers',
  nestModule: ProvidersModule,
  uses: ['invoices', 'rates', 'organizations'],
  owner: '@payments-team',
  docs: 'docs/payments.md',
} satisfies ModuleManifest;
