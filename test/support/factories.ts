import { admin, Api } from './api';

export interface TestOrg {
  id: string;
  name: string;
  testKey: string;
  liveKey: string;
  /** Client with the test-mode key. */
  test: Api;
  /** Client with the live-mode key. */
  live: Api;
}

let counter = 0;

/** Each test makes its own organization through the operator API, so tests never share data. */
export async function createOrg(name = `Org ${process.pid}-${++counter}`): Promise<TestOrg> {
  const res = await admin().post('/admin/organizations', { name });
  if (res.status !== 201) throw new Error(`could not create organization: ${res.text}`);
  const { organization_id, test_key, live_key } = res.body.data;
  return { id: organization_id, name, testKey: test_key, liveKey: live_key, test: new Api(test_key), live: new Api(live_key) };
}

export async function createKey(orgId: string, mode: 'test' | 'live', readOnly = false): Promise<string> {
  const res = await admin().post(`/admin/organizations/${orgId}/keys`, { mode, read_only: readOnly });
  if (res.status !== 201) throw new Error(`could not create key: ${res.text}`);
  return res.body.data.key;
}
