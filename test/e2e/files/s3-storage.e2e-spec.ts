import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectError, expectSuccess } from '../../support/envelope';
import { freePort } from '../../support/server';
import { download, OwnService, PNG, startOwnService, upload } from './files-helpers';
import { describeStorageContract, StorageBackend } from './storage-contract';

// s3rver ships no type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver');

const BUCKET = 'invoicing-files-test';
// s3rver's built-in credentials.
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';

async function runS3rver(port: number, dir: string): Promise<{ close(): Promise<void> }> {
  const s3rver = new S3rver({ port, address: '127.0.0.1', silent: true, directory: dir });
  await s3rver.run();
  return s3rver;
}

/** A real S3-compatible server on loopback (s3rver), with a fresh bucket. */
async function startS3Backend(): Promise<StorageBackend & { restartLater(): Promise<() => Promise<void>> }> {
  const dir = mkdtempSync(join(tmpdir(), 'ipa-files-s3-'));
  const port = await freePort();
  let s3rver = await runS3rver(port, dir);
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  return {
    env: {
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: ACCESS_KEY,
      S3_SECRET_ACCESS_KEY: SECRET_KEY,
      S3_FORCE_PATH_STYLE: 'true',
    },
    async listKeys() {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, ContinuationToken: token }));
        keys.push(...(page.Contents ?? []).map((o) => o.Key as string));
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    /** Stops the S3 server; the returned function starts it again on the same port and data. */
    async restartLater() {
      await s3rver.close();
      return async () => {
        s3rver = await runS3rver(port, dir);
      };
    },
    async stop() {
      client.destroy();
      await s3rver.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describeStorageContract('S3-compatible', startS3Backend);

describe('files when the S3 server is unreachable', () => {
  let backend: Awaited<ReturnType<typeof startS3Backend>>;
  let service: OwnService;

  beforeAll(async () => {
    backend = await startS3Backend();
    service = await startOwnService(backend.env);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    await backend?.stop();
  }, 60_000);

  it('keeps the record and its bytes when storage refuses a delete, and answers 503 to uploads', async () => {
    const org = await service.createOrg();
    const { id, url } = expectSuccess(await upload(org.test, PNG, { name: 'kept.png' }));

    const restart = await backend.restartLater();
    try {
      expectError(await org.test.delete(`/files/${id}`), 503, { code: 'service_unavailable' });
      expectError(await upload(org.test, Buffer.from('no storage'), { name: 'lost.txt' }), 503, { code: 'service_unavailable' });
      expect(expectSuccess(await org.test.get('/files')).items.map((i: { id: string }) => i.id)).toEqual([id]);
    } finally {
      await restart();
    }

    expect((await download(url, org.testKey)).bytes.equals(PNG)).toBe(true);
    expect(await backend.listKeys()).toEqual([`${org.id}/test/${id}`]);
    expect(expectSuccess(await org.test.delete(`/files/${id}`))).toEqual({ id });
    expect(await backend.listKeys()).toEqual([]);
  });
});
