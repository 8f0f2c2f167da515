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
  docs: 'docs/files.md',
  loadConfig: loadFilesConfig,
  idKinds: ID_KINDS,
  events: [...FILE_EVENT_TYPES],
  settings: [
    {
      name: 'FILES_DIR',
      section: 'Files',
      default: './data/files',
      description: 'Folder of the local file storage (used when S3_BUCKET is unset).',
      readme: {
        default: '`./data/files`',
        meaning: 'Folder of the local file storage.',
      },
    },
    {
      name: 'FILES_MAX_BYTES',
      section: 'Files',
      default: '10485760',
      description: 'Largest upload in bytes (up to 5 GiB); checked while the upload streams.',
      readme: {
        default: '`10485760`',
        meaning: 'Largest upload (1 byte to 5 GiB); checked while streaming.',
      },
    },
    {
      name: 'S3_BUCKET',
      section: 'Files',
      default: '',
      description: 'Bucket of S3-compatible object storage; setting it stores files there instead of FILES_DIR.',
      readme: {
        default: '(unset)',
        meaning: 'Setting it stores files in S3-compatible object storage instead of `FILES_DIR`.',
      },
    },
    {
      name: 'S3_ENDPOINT',
      section: 'Files',
      default: '',
      description: 'Endpoint of a self-hosted S3-compatible server (MinIO, R2, ...); unset for AWS S3.',
      readme: {
        default: '(unset), `us-east-1`',
        meaning: 'Endpoint of a self-hosted S3-compatible server (unset for AWS); region.',
        label: '`S3_ENDPOINT`, `S3_REGION`',
      },
    },
    {
      name: 'S3_REGION',
      section: 'Files',
      default: 'us-east-1',
      description: 'Region of the bucket.',
    },
    {
      name: 'S3_ACCESS_KEY_ID',
      section: 'Files',
      default: '',
      description: "Static access key (set with S3_SECRET_ACCESS_KEY); unset: the AWS SDK's default credential chain.",
      readme: {
        default: '(unset)',
        meaning: "Both or neither (neither: the AWS SDK's default credentials).",
        label: '`S3_ACCESS_KEY_ID`, `S3_SECRET_ACCESS_KEY`',
      },
    },
    {
      name: 'S3_SECRET_ACCESS_KEY',
      section: 'Files',
      default: '',
      description: 'Secret of S3_ACCESS_KEY_ID.',
    },
    {
      name: 'S3_FORCE_PATH_STYLE',
      section: 'Files',
      default: 'false',
      description: 'Path-style bucket addressing (endpoint/bucket/key), needed by most self-hosted S3 servers.',
      readme: {
        default: '`false`',
        meaning: 'Path-style bucket addressing, needed by most self-hosted S3 servers.',
      },
    },
  ],
} satisfies ModuleManifest;
