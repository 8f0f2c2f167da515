import { spawnSync } from 'node:child_process';
import { admin, Api, anonymous } from '../../support/api';
import { expectError, expectSuccess } from '../../support/envelope';
import { createKey, createOrg } from '../../support/factories';

describe('API keys', () => {
  it('accepts the bare key and the Bearer form', async () => {
    const org = await createOrg('Acme keys');
    for (const authorization of [org.testKey, `Bearer ${org.testKey}`]) {
      const data = expectSuccess(await org.test.get('/auth/debug_token', { authorization }));
      expect(data).toMatchObject({ organization_id: org.id, organization_name: 'Acme keys', mode: 'test', read_only: false });
      expect(data.key_prefix).toBe(org.testKey.slice(0, 14));
      expect(data.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    }
  });

  it('accepts the key as the user of HTTP Basic auth (curl -u sk_test_...:)', async () => {
    const org = await createOrg('Acme basic');
    const basic = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;
    expect(expectSuccess(await org.test.get('/auth/debug_token', { authorization: basic(`${org.testKey}:`) }))).toMatchObject({
      organization_id: org.id,
      mode: 'test',
    });
    expect(expectSuccess(await org.test.get('/auth/debug_token', { authorization: basic(`${org.liveKey}:`) }))).toMatchObject({
      organization_id: org.id,
      mode: 'live',
    });
    // As curl sends it.
    const curl = spawnSync('curl', ['-s', '-u', `${org.testKey}:`, `${org.test.base}/auth/debug_token`], { encoding: 'utf8' });
    expect(JSON.parse(curl.stdout).data).toMatchObject({ organization_id: org.id, mode: 'test' });
    expectError(await org.test.get('/auth/debug_token', { authorization: basic(`sk_test_${'A'.repeat(40)}:`) }), 401, { code: 'invalid_api_key' });
  });

  it('rejects a missing, malformed or unknown key with 401', async () => {
    expectError(await anonymous().get('/auth/debug_token'), 401, { code: 'missing_api_key' });
    expectError(await new Api('sk_test_short').get('/auth/debug_token'), 401, { code: 'malformed_api_key' });
    expectError(await new Api(`sk_test_${'A'.repeat(40)}`).get('/auth/debug_token'), 401, { code: 'invalid_api_key' });
  });

  it('rejects a revoked key with 401, by full key or by prefix', async () => {
    const org = await createOrg();
    const second = await createKey(org.id, 'test');
    expectSuccess(await new Api(second).get('/auth/debug_token'));
    expectSuccess(await admin().post('/admin/keys/revoke', { key: second }));
    expectError(await new Api(second).get('/auth/debug_token'), 401, { code: 'invalid_api_key' });

    const third = await createKey(org.id, 'live');
    // a display prefix needs its organization: prefixes are not unique across organizations
    expectError(await admin().post('/admin/keys/revoke', { key: third.slice(0, 14) }), 400, { code: 'organization_required', field: 'organization_id' });
    const other = await createOrg();
    expectError(await admin().post('/admin/keys/revoke', { key: third.slice(0, 14), organization_id: other.id }), 404, { code: 'api_key_not_found' });
    expectSuccess(await new Api(third).get('/auth/debug_token'));
    expectSuccess(await admin().post('/admin/keys/revoke', { key: third.slice(0, 14), organization_id: org.id }));
    expectError(await new Api(third).get('/auth/debug_token'), 401);
    expectSuccess(await org.test.get('/auth/debug_token'));
  });

  it('tells test and live keys apart and reports read-only keys', async () => {
    const org = await createOrg();
    expect(expectSuccess(await org.live.get('/auth/debug_token')).mode).toBe('live');
    const readOnly = await createKey(org.id, 'test', true);
    const res = await new Api(readOnly).get('/auth/debug_token');
    expect(expectSuccess(res).read_only).toBe(true);
  });

  it('protects the operator API with its token', async () => {
    expectError(await anonymous().post('/admin/organizations', { name: 'x' }), 401, { code: 'invalid_admin_token' });
    expectError(await anonymous().post('/admin/organizations', { name: 'x' }, { headers: { 'x-admin-token': 'wrong-token-wrong-token' } }), 401);
  });

  it('answers 404 when issuing a key for an unknown organization', async () => {
    expectError(await admin().post('/admin/organizations/org_nope/keys', { mode: 'test' }), 404, { code: 'organization_not_found' });
  });
});
