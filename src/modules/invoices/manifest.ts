import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { InvoicesModule } from './invoices.module';
import { loadInvoicesConfig } from './invoices.config';
import { INVOICE_EVENT_TYPES } from './events/invoice.events';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['invoice', 'invoice_item', 'invoice_calc', 'pi'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The invoices module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'invoices',
  nestModule: InvoicesModule,
  uses: ['quotes', 'products', 'organizations'],
  owner: '@invoicing-team',
  docs: 'docs/invoices.md',
  loadConfig: loadInvoicesConfig,
  idKinds: ID_KINDS,
  events: [...INVOICE_EVENT_TYPES],
} satisfies ModuleManifest;
