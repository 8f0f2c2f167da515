import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { RatesModule } from './rates.module';
import { loadRatesConfig } from './rates.config';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['rates'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The rates module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'rates',
  nestModule: RatesModule,
  uses: [],
  owner: '@catalog-team',
  docs: 'docs/catalog.md',
  loadConfig: loadRatesConfig,
  idKinds: ID_KINDS,
} satisfies ModuleManifest;
