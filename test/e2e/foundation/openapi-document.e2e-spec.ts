import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { anonymous } from '../../support/api';

describe('GET /openapi.json', () => {
  it('serves the committed openapi.json (npm run openapi writes it from the same code, without a database)', async () => {
    const res = await anonymous().get('/openapi.json');
    expect(res.status).toBe(200);
    const committed = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'openapi.json'), 'utf8'));
    expect(res.body).toEqual(committed);
  });
});
