import type { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { embeddedUrl } from '../../support/embedded';
import type { IsolatedService } from '../../support/isolated';
import { withClient } from '../../support/pg';

export const MINUTE = 60;

/** Moves a service's clock forward (CLOCK_CONTROL=true) and returns its new now. */
export async function advance(api: Api, seconds: number): Promise<Date> {
  const data = expectSuccess(await api.post('/test_helpers/clock', { advance_seconds: seconds }));
  return new Date(data.now_iso);
}

export async function clockNow(api: Api): Promise<Date> {
  return new Date(expectSuccess(await api.get('/test_helpers/clock')).now_iso);
}

/** "YYYY-MM-DD HH:MM:SS" (UTC) as a Date. */
export const parseTime = (s: string) => new Date(`${s.replace(' ', 'T')}Z`);

export async function readInvoice(api: Api, id: string): Promise<any> {
  return expectSuccess(await api.post(`/invoices/${id}`, {}));
}

/** The database of an isolated service (the embedded one's address when it runs on one). */
export function databaseOf(service: IsolatedService): string {
  if (service.databaseUrl) return service.databaseUrl;
  return embeddedUrl(service.cliEnv.DATA_DIR ?? '');
}

/** The invoice's state as stored (what the sweeper or a write left), not as a read computes it. */
export async function storedState(databaseUrl: string, id: string): Promise<{ status: string; substatus: string | null }> {
  return withClient(databaseUrl, async (c) => (await c.query('SELECT status, substatus FROM invoices WHERE id = $1', [id])).rows[0]);
}

export async function waitFor<T>(probe: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await probe();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    value = await probe();
  }
  return value;
}
