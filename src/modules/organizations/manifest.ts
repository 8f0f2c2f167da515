import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { OrganizationsModule } from './organizations.module';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['org', 'key'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The organizations module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'organizations',
  nestModule: OrganizationsModule,
  uses: [],
  owner: '@organizations-team',
  docs: 'docs/organizations.md',
  idKinds: ID_KINDS,
} satisfies ModuleManifest;
