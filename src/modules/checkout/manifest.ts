import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { CheckoutModule } from './checkout.module';

/** The checkout module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'checkout',
  nestModule: CheckoutModule,
  uses: ['invoices', 'providers'],
  owner: '@checkout-team',
  docs: 'docs/checkout.md',
} satisfies ModuleManifest;
