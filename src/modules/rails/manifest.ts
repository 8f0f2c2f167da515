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
  settings: [
    {
      name: 'CHAINS_FILE',
      section: 'Live payments on EVM chains (docs/rails.md)',
      default: '',
      description:
        'JSON file of the chains to watch per mode (docs/going-live.md); unset: no watcher runs and payment addresses answer rail_not_configured.\nIts rpc_url values may name environment variables as ${NAME} (node credentials, API keys), replaced at start; an unset one stops the service.',
      readme: {
        default: '(unset)',
        meaning:
          'JSON file of the chains to watch per mode (see Live payments on EVM chains and on UTXO chains, and docs/going-live.md). Unset: no watcher runs and `payment_address` answers 400 `rail_not_configured`. A bad file stops the service, naming the field. An `rpc_url` may hold `${NAME}` references to environment variables (credentials, API keys), replaced at start; an unset one stops the service, naming it and the network.',
      },
    },
    {
      name: 'ALLOW_NO_LIVE_RAILS',
      section: 'Live payments on EVM chains (docs/rails.md)',
      default: 'false',
      description:
        'true: start in production even though CHAINS_FILE names no live network (live mode then takes no payment; without it such a start is refused).',
      readme: {
        default: '`false`',
        meaning:
          'In production, a start whose `CHAINS_FILE` names no network in its `live` section (or no `CHAINS_FILE`) is refused: live mode could offer no payment method. The service logs an error line saying so (with the fix, docs/going-live.md) and exits 1. `true` starts it anyway, with a warning line instead (to try a deployment before going live). No effect outside production.',
      },
    },
    {
      name: 'CHAIN_WATCHER',
      section: 'Live payments on EVM chains (docs/rails.md)',
      default: 'true',
      description: 'false: this instance hands out deposit addresses but never watches a chain (another instance does).',
      readme: {
        default: '`true`',
        meaning: '`false`: this instance never watches chains (another instance does).',
      },
    },
    {
      name: 'CHAIN_LOCK_RETRY_MS',
      section: 'Live payments on EVM chains (docs/rails.md)',
      default: '2000',
      description: "How often, in ms, an instance without a network's watcher lock tries to take it (the takeover time).",
      readme: {
        default: '`2000`',
        meaning: 'How often an instance not watching a network tries to take its watcher lock (the takeover time when the watcher dies), 100 to 60000.',
      },
    },
    {
      name: 'CHAIN_COUNT_BUDGET_MS',
      section: 'Live payments on EVM chains (docs/rails.md)',
      default: '1000',
      description:
        "How long, in ms, one watcher step counts pending payments' confirmations before it reads new blocks again (at least one fair batch a step; the rest on the next steps).",
      readme: {
        default: '`1000`',
        meaning:
          "How long one watcher step counts pending payments' confirmations before reading new blocks again, 0 to 60000 (at least one fair batch of `WORKER_ORG_BATCH` per organization a step): one organization's many pending transfers never hold back the scan of new blocks (docs/rails.md).",
      },
    },
    {
      name: 'CHAIN_ID_CHECK_SECONDS',
      section: 'Live payments on EVM chains (docs/rails.md)',
      default: '300',
      description:
        "How often, in seconds, each network's node is asked its chain id (also at start); a node on another chain than CHAINS_FILE names is not watched.",
      readme: {
        default: '`300`',
        meaning:
          "How often each network's node is asked its chain id (`eth_chainId`; also at start), 1 to 86400. A node answering another id than `CHAINS_FILE` names is not watched and its network's `payment_address` answers 400 `rail_unavailable` (docs/rails.md).",
      },
    },
  ],
} satisfies ModuleManifest;
