import { randomBytes } from 'node:crypto';
import { Api } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { download, GZIP, MP4, OwnService, PDF, PNG, sha256, startOwnService, upload, uploadForm, wav } from './files-helpers';

/** How the contract suite reaches one storage adapter. */
export interface StorageBackend {
  /** Service settings selecting and configuring the adapter. */
  env: Record<string, string>;
  /** Every object key currently held by the storage (temporary files included). */
  listKeys(): Promise<string[]>;
  stop(): Promise<void>;
}

/** The limit of the contract suite: above the S3 multipart part size, so large uploads span several parts. */
export const CONTRACT_MAX_BYTES = 6 * 1024 * 1024;

const KEY_SHAPE = /^org_[0-9a-f-]{36}\/(test|live)\/file_[0-9a-f-]{36}$/;

/**
 * The behaviour every storage adapter must give the files API, run unchanged against each one:
 * byte-exact round trips (including multi-part sizes), content-derived types, listing, deletion
 * of bytes and record, tenant isolation, and no leftovers from refused uploads.
 */
export function describeStorageContract(adapter: string, startBackend: () => Promise<StorageBackend>): void {
  describe(`files on ${adapter} storage (contract)`, () => {
    let backend: StorageBackend;
    let service: OwnService;

    beforeAll(async () => {
      backend = await startBackend();
      service = await startOwnService({ ...backend.env, FILES_MAX_BYTES: String(CONTRACT_MAX_BYTES) });
    }, 120_000);

    afterAll(async () => {
      await service?.stop();
      await backend?.stop();
    }, 60_000);

    it('round-trips binary content byte for byte, with its hash, size and headers', async () => {
      const org = await service.createOrg();
      const bytes = randomBytes(5 * 1024 * 1024 + 123_457); // more than one 5 MiB part
      const data = expectSuccess(await upload(org.test, bytes, { filename: 'blob.bin', name: 'Big blob.bin' }));
      expect(data.id).toMatch(/^file_[0-9a-f-]{36}$/);
      expect(data.url).toBe(`${service.base}/files/${data.id}/content`);

      const got = await download(data.url, org.testKey);
      expect(got.status).toBe(200);
      expect(got.bytes.length).toBe(bytes.length);
      expect(got.bytes.equals(bytes)).toBe(true);
      expect(got.headers.get('content-type')).toBe('application/octet-stream');
      expect(got.headers.get('content-length')).toBe(String(bytes.length));
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.headers.get('content-disposition')).toBe(`attachment; filename="Big blob.bin"; filename*=UTF-8''Big%20blob.bin`);

      const list = expectSuccess(await org.test.get('/files'));
      expect(list.items).toEqual([
        {
          id: data.id,
          name: 'Big blob.bin',
          url: data.url,
          type: 'general',
          mime_type: 'application/octet-stream',
          size: bytes.length,
          sha256: sha256(bytes),
          created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
        },
      ]);
      expect(await backend.listKeys()).toContain(`${org.id}/test/${data.id}`);
    });

    it('accepts a file of exactly the limit and refuses one byte more, leaving no record and no bytes', async () => {
      const org = await service.createOrg();
      const before = await backend.listKeys();
      const tooBig = randomBytes(CONTRACT_MAX_BYTES + 1);
      const res = await upload(org.test, tooBig, { name: 'too-big.bin' });
      expectError(res, 413, { code: 'payload_too_large' });
      expect(expectSuccess(await org.test.get('/files')).total).toBe(0);
      expect(await backend.listKeys()).toEqual(before);

      const exact = randomBytes(CONTRACT_MAX_BYTES);
      const ok = expectSuccess(await upload(org.test, exact, { name: 'exact.bin' }));
      expect(sha256((await download(ok.url, org.testKey)).bytes)).toBe(sha256(exact));
    });

    it('types files from their magic bytes, never from the claimed content type or name', async () => {
      const org = await service.createOrg();
      const cases: Array<[string, Buffer, string, string, string]> = [
        // name, bytes, claimed type, expected type, expected mime
        ['pixel.png', PNG, 'application/pdf', 'image', 'image/png'],
        ['paper.pdf', PDF, 'image/png', 'document', 'application/pdf'],
        ['bundle.gz', GZIP, 'text/plain', 'archive', 'application/gzip'],
        ['clip.mp4', MP4, 'application/octet-stream', 'video', 'video/mp4'],
        ['tone.wav', wav(), 'application/octet-stream', 'audio', 'audio/wav'],
        ['notes.png', Buffer.from('just some text, not an image\n'), 'image/png', 'general', 'text/plain'],
      ];
      const ids: Record<string, string> = {};
      for (const [name, bytes, claimed] of cases) {
        ids[name] = expectSuccess(await upload(org.test, bytes, { name, contentType: claimed, filename: name })).id;
      }
      const items = expectSuccess(await org.test.get('/files?limit=100')).items as Array<Record<string, unknown>>;
      for (const [name, bytes, , type, mime] of cases) {
        expect(items.find((i) => i.id === ids[name])).toMatchObject({ name, type, mime_type: mime, size: bytes.length, sha256: sha256(bytes) });
      }
      const png = await download(items.find((i) => i.id === ids['pixel.png'])!.url as string, org.testKey);
      expect(png.headers.get('content-type')).toBe('image/png');
      expect(png.headers.get('content-disposition')).toMatch(/^inline; /);
      expect(png.bytes.equals(PNG)).toBe(true);

      const images = expectSuccess(await org.test.get('/files?type=image'));
      expect(images.items.map((i: { id: string }) => i.id)).toEqual([ids['pixel.png']]);
      const general = expectSuccess(await org.test.get('/files?type=general'));
      expect(general.items.map((i: { id: string }) => i.id)).toEqual([ids['notes.png']]);
      for (const [type, name] of [
        ['document', 'paper.pdf'],
        ['archive', 'bundle.gz'],
        ['video', 'clip.mp4'],
        ['audio', 'tone.wav'],
      ]) {
        expect(expectSuccess(await org.test.get(`/files?type=${type}`)).items.map((i: { id: string }) => i.id)).toEqual([ids[name]]);
      }
    });

    it('filters by name case-insensitively (wildcards literal), by type, and pages newest first', async () => {
      const org = await service.createOrg();
      const names = ['Company LOGO.png', 'invoice-logo-2.pdf', 'report.txt', '100%_done.txt'];
      const contents = [PNG, PDF, Buffer.from('report'), Buffer.from('done')];
      const ids: string[] = [];
      for (let i = 0; i < names.length; i++) ids.push(expectSuccess(await upload(org.test, contents[i], { name: names[i] })).id);
      const newestFirst = [...ids].reverse();

      const logo = expectSuccess(await org.test.get('/files?search=logo'));
      expect(logo.items.map((i: { name: string }) => i.name)).toEqual(['invoice-logo-2.pdf', 'Company LOGO.png']);
      expect(logo.total).toBe(2);
      expect(expectSuccess(await org.test.get(`/files?search=${encodeURIComponent('LoGo')}&type=image`)).items.map((i: { id: string }) => i.id)).toEqual([
        ids[0],
      ]);
      expect(expectSuccess(await org.test.get(`/files?search=${encodeURIComponent('%_')}`)).items.map((i: { id: string }) => i.id)).toEqual([ids[3]]);
      expect(expectSuccess(await org.test.get('/files?search=nothing-like-this')).total).toBe(0);

      const first = expectSuccess(await org.test.get('/files?limit=3&offset=0'));
      expect(first).toMatchObject({ total: 4, limit: 3, offset: 0, has_more: true });
      expect(first.items.map((i: { id: string }) => i.id)).toEqual(newestFirst.slice(0, 3));
      const second = expectSuccess(await org.test.get('/files?limit=3&offset=3'));
      expect(second).toMatchObject({ total: 4, limit: 3, offset: 3, has_more: false });
      expect(second.items.map((i: { id: string }) => i.id)).toEqual(newestFirst.slice(3));
      const beyond = expectSuccess(await org.test.get('/files?offset=10'));
      expect(beyond).toMatchObject({ items: [], total: 4, limit: 20, offset: 10, has_more: false });
    });

    it('deletes the bytes and the record; afterwards the file is 404 everywhere', async () => {
      const org = await service.createOrg();
      const bytes = randomBytes(70_000);
      const { id, url } = expectSuccess(await upload(org.test, bytes, { name: 'gone.bin' }));
      const keep = expectSuccess(await upload(org.test, PNG, { name: 'keep.png' }));
      expect(await backend.listKeys()).toContain(`${org.id}/test/${id}`);

      const res = await org.test.delete(`/files/${id}`);
      expect(expectSuccess(res)).toEqual({ id });
      expect(res.body.message).toBe('File deleted');

      expect(await backend.listKeys()).not.toContain(`${org.id}/test/${id}`);
      expectError(await org.test.delete(`/files/${id}`), 404, { code: 'file_not_found' });
      const gone = await download(url, org.testKey);
      expect(gone.status).toBe(404);
      expect(gone.json).toMatchObject({ status: 404, code: 'file_not_found' });
      expect(expectSuccess(await org.test.get('/files')).items.map((i: { id: string }) => i.id)).toEqual([keep.id]);
      expect((await download(keep.url, org.testKey)).bytes.equals(PNG)).toBe(true);
    });

    it("answers 404 for another organization's file and for the other mode's file, on content and delete", async () => {
      const owner = await service.createOrg();
      const other = await service.createOrg();
      const { id, url } = expectSuccess(await upload(owner.test, PNG, { name: 'private.png' }));

      for (const [api, key] of [
        [other.test, other.testKey],
        [owner.live, owner.liveKey],
        [other.live, other.liveKey],
      ] as Array<[Api, string]>) {
        const content = await download(url, key);
        expect(content.status).toBe(404);
        expect(content.json).toMatchObject({ status: 404, code: 'file_not_found' });
        expectError(await api.delete(`/files/${id}`), 404, { code: 'file_not_found' });
        expect(expectSuccess(await api.get('/files')).total).toBe(0);
      }
      expect((await download(url, owner.testKey)).bytes.equals(PNG)).toBe(true);
      expect(expectSuccess(await owner.test.get('/files')).total).toBe(1);

      // The same holds the other way round: a live-mode file is invisible to test keys.
      const live = expectSuccess(await upload(owner.live, PNG, { name: 'live.png' }));
      expect((await download(live.url, owner.testKey)).status).toBe(404);
      expectError(await owner.test.delete(`/files/${live.id}`), 404);
      expect(expectSuccess(await owner.live.get('/files')).items.map((i: { id: string }) => i.id)).toEqual([live.id]);
      expect(await backend.listKeys()).toContain(`${owner.id}/live/${live.id}`);
    });

    it('stores path-traversal names harmlessly: keys come from ids, the name is kept as given', async () => {
      const org = await service.createOrg();
      const before = new Set(await backend.listKeys());
      const names = ['../../etc/passwd', '..\\..\\windows\\win.ini', '/absolute/path.txt', 'a"; filename="x.html'];
      const ids: string[] = [];
      for (const name of names) ids.push(expectSuccess(await upload(org.test, Buffer.from(`content of ${name}`), { name, filename: name })).id);

      const created = (await backend.listKeys()).filter((k) => !before.has(k));
      expect(created.sort()).toEqual(ids.map((id) => `${org.id}/test/${id}`).sort());
      for (const key of created) expect(key).toMatch(KEY_SHAPE);

      const items = expectSuccess(await org.test.get('/files')).items as Array<{ id: string; name: string; url: string }>;
      expect(items.map((i) => i.name).sort()).toEqual([...names].sort());
      const passwd = items.find((i) => i.name === '../../etc/passwd')!;
      const got = await download(passwd.url, org.testKey);
      expect(got.bytes.toString()).toBe('content of ../../etc/passwd');
      expect(got.headers.get('content-disposition')).toBe(`inline; filename="passwd"; filename*=UTF-8''passwd`);
      const quoted = items.find((i) => i.name.startsWith('a"'))!;
      const header = (await download(quoted.url, org.testKey)).headers.get('content-disposition')!;
      expect(header.match(/"/g)).toHaveLength(2);
    });

    it('removes the stored bytes when the upload is refused after streaming (invalid name, empty file)', async () => {
      const org = await service.createOrg();
      const before = await backend.listKeys();
      expectError(await upload(org.test, randomBytes(50_000), { name: 'x'.repeat(256) }), 400, { field: 'name' });
      expectError(await upload(org.test, randomBytes(50_000), { name: 'bad\u0001name' }), 400, { field: 'name' });
      expectError(await upload(org.test, Buffer.alloc(0), { name: 'empty.txt' }), 400, { field: 'file' });
      expect(await backend.listKeys()).toEqual(before);
      expect(expectSuccess(await org.test.get('/files')).total).toBe(0);
    });

    it('removes the stored bytes when a text field after the file part is a reserved name', async () => {
      const org = await service.createOrg();
      const before = await backend.listKeys();
      for (const field of ['__proto__', 'constructor', 'prototype']) {
        const form = uploadForm(randomBytes(50_000));
        form.append(field, 'x');
        expectError(await org.test.request('POST', '/files/upload', { rawBody: form }), 400, { field });
      }
      expect(await backend.listKeys()).toEqual(before);
      expect(expectSuccess(await org.test.get('/files')).total).toBe(0);
    });

    it('refuses a bracketed text field name at once with 400 naming it (no array built from its index), keeping no bytes', async () => {
      const org = await service.createOrg();
      const before = await backend.listKeys();
      for (const field of ['x[4294967294]', 'name[]', 'name[a]']) {
        const form = uploadForm(randomBytes(50_000));
        form.append(field, '1');
        expectError(await org.test.request('POST', '/files/upload', { rawBody: form }), 400, { field });
      }
      expect(await backend.listKeys()).toEqual(before);
      expect(expectSuccess(await org.test.get('/files')).total).toBe(0);
    });

    it('falls back to the multipart filename when no name is given', async () => {
      const org = await service.createOrg();
      const { id } = expectSuccess(await upload(org.test, PNG, { filename: 'héllo wörld.png' }));
      const items = expectSuccess(await org.test.get('/files')).items;
      expect(items).toEqual([expect.objectContaining({ id, name: 'héllo wörld.png', type: 'image' })]);
    });
  });
}
