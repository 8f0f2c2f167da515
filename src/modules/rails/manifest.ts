import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { RailsModule } from './rails.module';
import { loadRailsConfig } from './rails.config';
import { RAIL_ADAPTERS } from './rail-registry';
import { TRANSFER_EVENT_TYPES } from './events/transfer.events';
import { WALLET_EVENT_TYPES } from './events/wallet.events';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['wallet', 'unmatched'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The rails module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'rails',
  nestModule: RailsModule,
  uses: ['invoices', 'providers', 'payments', 'rates'],
  owner: '@rails-team',
  docs: 'docs/rails.md',
  loadConfig: (env) => loadRailsConfig(env, RAIL_ADAPTERS),
  idKinds: ID_KINDS,
  events: [...TRANSFER_EVENT_TYPES, ...WALLET_EVENT_TYPES],
} satisfies ModuleManifest;
