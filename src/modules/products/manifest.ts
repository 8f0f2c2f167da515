import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { ProductsModule } from './products.module';
import { PRODUCT_EVENT_TYPES } from './events/product.events';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['product', 'schema', 'config', 'metric'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The products module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'products',
  nestModule: ProductsModule,
  uses: ['files'],
  owner: '@catalog-team',
  docs: 'docs/catalog.md',
  idKinds: ID_KINDS,
  events: [...PRODUCT_EVENT_TYPES],
} satisfies ModuleManifest;
