import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { ConsoleModule } from './console.module';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['member', 'audit'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The management console (docs/console.md), as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'console',
  nestModule: ConsoleModule,
  uses: ['organizations', 'invoices', 'analytics', 'payments', 'refunds', 'events', 'webhooks', 'subscriptions', 'products', 'rails'],
  owner: '@console-team',
  docs: 'docs/console.md',
  idKinds: ID_KINDS,
} satisfies ModuleManifest;
