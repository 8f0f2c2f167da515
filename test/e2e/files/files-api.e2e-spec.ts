import { Api, anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg } from '../../support/factories';
import { startServer } from '../../support/server';
import { upload, uploadForm } from './files-helpers';

/** Request checks that store nothing, on the shared test service. */
describe('files API: authentication and input validation', () => {
  it('answers 401 without a key on every files endpoint', async () => {
    const none = anonymous();
    expectError(await upload(none, Buffer.from('x'), { name: 'x.txt' }), 401, { code: 'missing_api_key' });
    expectError(await none.get('/files'), 401, { code: 'missing_api_key' });
    expectError(await none.delete('/files/file_0193'), 401, { code: 'missing_api_key' });
    expectError(await none.get('/files/file_0193/content'), 401, { code: 'missing_api_key' });
    expectError(await new Api(`sk_test_${'Z'.repeat(40)}`).get('/files'), 401, { code: 'invalid_api_key' });
  });

  it('answers 403 to a read-only key on upload and delete, but lets it list', async () => {
    const org = await createOrg();
    const readOnly = new Api(await createKey(org.id, 'test', true));
    expectError(await upload(readOnly, Buffer.from('x'), { name: 'x.txt' }), 403, { code: 'read_only_key' });
    expectError(await readOnly.delete('/files/file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f'), 403, { code: 'read_only_key' });
    expect(expectSuccess(await readOnly.get('/files'))).toEqual({ items: [], total: 0, limit: 20, offset: 0, has_more: false });
  });

  it('requires the file part (400 with validator.file)', async () => {
    const org = await createOrg();
    const onlyName = await org.test.request('POST', '/files/upload', { rawBody: uploadForm(null, { name: 'no content' }) });
    expect(expectError(onlyName, 400, { code: 'validation_failed', field: 'file' }).validator.file).toMatch(/required/);
    expectError(await org.test.post('/files/upload', { name: 'json instead' }), 400, { field: 'file' });
    expectError(await upload(org.test, Buffer.from('x'), { name: 'x', field: 'upload' }), 400, { field: 'file' });
    expect(expectSuccess(await org.test.get('/files')).total).toBe(0);
  });

  it('refuses an unreadable multipart body with 400', async () => {
    const org = await createOrg();
    const res = await org.test.request('POST', '/files/upload', {
      rawBody: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nabc',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
    });
    expectError(res, 400, { code: 'malformed_multipart' });
  });

  it('validates list parameters', async () => {
    const org = await createOrg();
    expectError(await org.test.get('/files?limit=101'), 400, { field: 'limit' });
    expectError(await org.test.get('/files?limit=abc'), 400, { field: 'limit' });
    expectError(await org.test.get('/files?offset=-1'), 400, { field: 'offset' });
    expectError(await org.test.get('/files?type=spreadsheet'), 400, { field: 'type' });
    expectError(await org.test.get('/files?type=image&type=video'), 400, { field: 'type' });
    expectError(await org.test.get(`/files?search=${'a'.repeat(201)}`), 400, { field: 'search' });
    expect(expectSuccess(await org.test.get('/files?search=')).total).toBe(0);
    expect(expectSuccess(await org.test.get('/files?limit=100&offset=0&type=image&search=x'))).toMatchObject({ limit: 100, offset: 0, total: 0 });
  });

  it('answers 404 for unknown or malformed ids', async () => {
    const org = await createOrg();
    expectError(await org.test.delete('/files/file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f'), 404, { code: 'file_not_found' });
    expectError(await org.test.delete('/files/not-an-id'), 404, { code: 'file_not_found' });
    expectError(await org.test.get('/files/%2e%2e%2fetc/content'), 404);
  });

  it('documents the files endpoints in the OpenAPI document', async () => {
    const res = await anonymous().get('/openapi.json');
    if (!res.body?.paths) throw new Error(`${res.status} ${res.text.slice(0, 500)}`);
    const doc = res.body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/files/upload', '/files', '/files/{id}', '/files/{id}/content']));
    expect(doc.paths['/files/upload'].post.requestBody.content['multipart/form-data'].schema.properties.file).toMatchObject({
      type: 'string',
      format: 'binary',
    });
    expect(doc.paths['/files'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['limit', 'offset', 'search', 'type']);
  });
});

describe('files configuration', () => {
  it.each([
    [{ FILES_MAX_BYTES: 'lots' }, /FILES_MAX_BYTES="lots"/],
    [{ FILES_MAX_BYTES: '0' }, /FILES_MAX_BYTES=0/],
    [{ S3_BUCKET: 'files', S3_ACCESS_KEY_ID: 'only-the-id' }, /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together/],
    [{ S3_ENDPOINT: 'http://127.0.0.1:9000' }, /S3_BUCKET must be set/],
    [{ S3_BUCKET: 'Not_A_Bucket' }, /S3_BUCKET="Not_A_Bucket"/],
    [{ PUBLIC_BASE_URL: 'ftp://files.example.com' }, /PUBLIC_BASE_URL/],
  ])('refuses to start with %j, naming the setting', async (env, message) => {
    const databaseUrl = process.env.TEST_DATABASE_URL || undefined;
    const failure = await startServer({ databaseUrl, env: env, readyTimeoutMs: 30_000 }).then(
      async (server) => {
        await server.stop();
        return 'started';
      },
      (e: Error) => e.message,
    );
    expect(failure).toMatch(/Invalid configuration/);
    expect(failure).toMatch(message);
  });
});
