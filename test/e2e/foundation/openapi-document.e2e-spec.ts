import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { anonymous, Api, testDatabaseUrl } from '../../support/api';
import { createOrg } from '../../support/factories';
import { startServer } from '../../support/server';

const committed = () => JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
const without = (doc: { paths: Record<string, unknown> }, prefix: string) => ({
  ...doc,
  paths: Object.fromEntries(Object.entries(doc.paths).filter(([path]) => !path.startsWith(prefix))),
});

describe('GET /openapi.json', () => {
  it('serves the committed openapi.json (npm run openapi writes it from the same code, without a database), less the routes switched off here', async () => {
    // The tests' service has the operator API (ADMIN_API_TOKEN) and not the movable clock (CLOCK_CONTROL).
    const res = await anonymous().get('/openapi.json');
    expect(res.status).toBe(200);
    expect(Object.keys(committed().paths)).toContain('/test_helpers/clock');
    expect(res.body).toEqual(without(committed(), '/test_helpers/clock'));
    expect(Object.keys(res.body.paths)).toContain('/admin/organizations');
    // CLOCK_CONTROL off: the clock routes answer 403 clock_control_disabled (they were a bare 404 before).
    const clock = await (await createOrg()).test.get('/test_helpers/clock');
    expect([clock.status, clock.body.code]).toEqual([403, 'clock_control_disabled']);
  });

  it('leaves out the operator API when ADMIN_API_TOKEN is unset, and shows the clock when CLOCK_CONTROL is on', async () => {
    const server = await startServer({ databaseUrl: testDatabaseUrl(), env: { ADMIN_API_TOKEN: undefined, CLOCK_CONTROL: 'true' } });
    try {
      const res = await new Api(null, server.baseUrl).get('/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(without(committed(), '/admin/'));
      expect(Object.keys(res.body.paths)).toContain('/test_helpers/clock');
      expect((await new Api(null, server.baseUrl).post('/admin/organizations', { name: 'x' })).status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});
