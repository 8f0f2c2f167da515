import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { OwnService, startOwnService, upload, uploadForm } from './files-helpers';
import { waitFor } from '../timing/timing-helpers';
import { describeStorageContract, StorageBackend } from './storage-contract';

/** Every file under `dir`, as paths relative to it. */
function walk(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? walk(path, root) : [relative(root, path)];
  });
}

describeStorageContract('local', async (): Promise<StorageBackend> => {
  const dir = mkdtempSync(join(tmpdir(), 'ipa-files-local-'));
  return {
    env: { FILES_DIR: dir },
    listKeys: async () =>
      walk(dir)
        .map((p) => p.split(/[\\/]/).join('/'))
        .sort(),
    stop: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe('files on local storage with a 1 KiB limit', () => {
  let outer: string;
  let filesDir: string;
  let service: OwnService;

  beforeAll(async () => {
    // FILES_DIR sits inside a folder of its own, so anything written beside it would show.
    outer = mkdtempSync(join(tmpdir(), 'ipa-files-limit-'));
    filesDir = join(outer, 'nested', 'files');
    mkdirSync(filesDir, { recursive: true });
    service = await startOwnService({ FILES_MAX_BYTES: '1024', FILES_DIR: filesDir, PUBLIC_BASE_URL: 'https://files.example.test/api/' });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
    rmSync(outer, { recursive: true, force: true });
  }, 60_000);

  it('refuses an upload over the limit with 413 and leaves no record and no bytes', async () => {
    const org = await service.createOrg();
    const res = await upload(org.test, randomBytes(2048), { name: 'big.bin' });
    const body = expectError(res, 413, { code: 'payload_too_large', field: 'file' });
    expect(body.error).toContain('1024');
    expect(walk(filesDir)).toEqual([]);
    expect(expectSuccess(await org.test.get('/files')).total).toBe(0);

    // A much larger one is cut off while streaming, the same way.
    expectError(await upload(org.test, randomBytes(3 * 1024 * 1024), { name: 'huge.bin' }), 413, { code: 'payload_too_large' });
    expect(walk(filesDir)).toEqual([]);

    const ok = expectSuccess(await upload(org.test, randomBytes(1024), { name: 'fits.bin' }));
    expect(walk(filesDir)).toEqual([join(org.id, 'test', ok.id)]);
    // PUBLIC_BASE_URL decides the address in `url`.
    expect(ok.url).toBe(`https://files.example.test/api/files/${ok.id}/content`);
  });

  it('answers a multipart body cut off inside the file part with 400 malformed_multipart, logs no storage failure and keeps no bytes', async () => {
    const org = await service.createOrg();
    // The part's first bytes arrive (and are handed to storage) well before the body ends, without a closing boundary.
    const head = '--cut\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nthe first bytes, ';
    const tail = 'and the body ends here';
    const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = httpRequest(
        `${service.server.baseUrl}/files/upload`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${org.testKey}`,
            'content-type': 'multipart/form-data; boundary=cut',
            'content-length': Buffer.byteLength(head + tail),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d)).on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.write(head);
      setTimeout(() => req.end(tail), 300);
    });
    expect([answer.status, answer.body.code]).toEqual([400, 'malformed_multipart']);
    // The receiver can finish after the answer left: give a storage-failure line time to show.
    const output = await waitFor(
      async () => service.server.output(),
      (o) => o.includes('file storage write failed'),
      1_500,
    );
    expect(output).not.toContain('file storage write failed');
    const own = () => walk(filesDir).filter((path) => path.startsWith(org.id));
    expect(
      await waitFor(
        async () => own(),
        (files) => files.length === 0,
        5_000,
      ),
    ).toEqual([]);
    expect(expectSuccess(await org.test.get('/files')).total).toBe(0);
  });

  it('answers 404 file_content_missing when the bytes vanished, and a DELETE still clears the record', async () => {
    const org = await service.createOrg();
    const { id } = expectSuccess(await upload(org.test, Buffer.from('soon gone'), { name: 'vanishing.txt' }));
    rmSync(join(filesDir, org.id, 'test', id));
    expectError(await org.test.get(`/files/${id}/content`), 404, { code: 'file_content_missing' });
    expect(expectSuccess(await org.test.delete(`/files/${id}`))).toEqual({ id });
    expectError(await org.test.get(`/files/${id}/content`), 404, { code: 'file_not_found' });
    expect(expectSuccess(await org.test.get('/files')).total).toBe(0);
  });

  it('writes nothing outside FILES_DIR for path-traversal names', async () => {
    const org = await service.createOrg();
    for (const name of ['../../etc/passwd', '../../../outside.txt', '..%2F..%2Fescape']) {
      expectSuccess(await upload(org.test, Buffer.from('payload'), { name, filename: name }));
    }
    expect(walk(outer).every((p) => p.startsWith(join('nested', 'files') + '/'))).toBe(true);
    expect(readdirSync(outer)).toEqual(['nested']);
    expect(readdirSync(join(outer, 'nested'))).toEqual(['files']);
    for (const p of walk(filesDir)) expect(p).toMatch(/^org_[0-9a-f-]{36}\/(test|live)\/file_[0-9a-f-]{36}$/);
  });

  it('refuses a second file part and removes the first one it had stored', async () => {
    const org = await service.createOrg();
    const before = walk(filesDir);
    const form = uploadForm(Buffer.from('one'), { name: 'two files' });
    form.append('file', new Blob([new Uint8Array(Buffer.from('two'))]), 'second.txt');
    expectError(await org.test.request('POST', '/files/upload', { rawBody: form }), 400, { field: 'file' });
    expect(walk(filesDir)).toEqual(before);
    expect(expectSuccess(await org.test.get('/files')).total).toBe(0);
  });

  it('refuses a read-only key with 403 before storing anything', async () => {
    const org = await service.createOrg();
    const readOnly = new Api(await service.createKey(org.id, 'test', true), service.base);
    const before = walk(filesDir);
    expectError(await upload(readOnly, Buffer.from('hello'), { name: 'a.txt' }), 403, { code: 'read_only_key' });
    expect(walk(filesDir)).toEqual(before);
  });
});
