import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { QuotesModule } from './quotes.module';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['quote'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The quotes module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'quotes',
  nestModule: QuotesModule,
  uses: ['rates', 'products'],
  owner: '@invoicing-team',
  docs: 'docs/invoices.md',
  idKinds: ID_KINDS,
} satisfies ModuleManifest;
