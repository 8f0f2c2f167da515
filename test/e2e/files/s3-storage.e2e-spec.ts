import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../support/server';
import { describeStorageContract, StorageBackend } from './storage-contract';

// s3rver ships no type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver');

const BUCKET = 'invoicing-files-test';
// s3rver's built-in credentials.
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';

/** A real S3-compatible server on loopback (s3rver), with a fresh bucket, for the same contract suite. */
describeStorageContract('S3-compatible', async (): Promise<StorageBackend> => {
  const dir = mkdtempSync(join(tmpdir(), 'ipa-files-s3-'));
  const port = await freePort();
  const s3rver = new S3rver({ port, address: '127.0.0.1', silent: true, directory: dir });
  await s3rver.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: SECRET_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
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
    async stop() {
      client.destroy();
      await s3rver.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
