import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { FilesModule } from './files.module';
import { loadFilesConfig } from './files.config';
import { FILE_EVENT_TYPES } from './events/file.events';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['file'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The files module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'files',
  nestModule: FilesModule,
  uses: [],
  owner: '@files-team',
  loadConfig: loadFilesConfig,
  idKinds: ID_KINDS,
  events: [...FILE_EVENT_TYPES],
} satisfies ModuleManifest;
