import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local stand-ins for exchanges we cannot reach from here: each one is an HTTP server answering in
 * the shape its public API documents (Coinbase's /v2/exchange-rates, Kraken's /0/public/Ticker,
 * CoinGecko's /api/v3/simple/price) or a URL source in the rates-file shape.
 */

export type Behaviour = 'answer' | 'error' | 'hang';

export interface FakeExchange {
  url: string;
  behaviour: Behaviour;
  /** Requests received (path and query). */
  seen: string[];
  close(): Promise<void>;
}

/** A local exchange answering `answer(path)` (an object as JSON, a string as it is) while its behaviour is `answer`. */
export async function fakeExchange(answer: (path: string) => unknown): Promise<FakeExchange> {
  const hanging = new Set<ServerResponse>();
  const fake: FakeExchange = { url: '', behaviour: 'answer', seen: [], close: async () => undefined };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    fake.seen.push(req.url ?? '');
    if (fake.behaviour === 'hang') {
      hanging.add(res);
      return;
    }
    if (fake.behaviour === 'error') {
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ id: 'unavailable', message: 'try later' }] }));
      return;
    }
    const body = answer(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return fake;
}

/** Coinbase's GET /v2/exchange-rates?currency=USD: units of each currency one US dollar buys, as text. */
export const coinbaseAnswer = (rates: Record<string, string>) => ({ data: { currency: 'USD', rates: { ...rates, USD: '1.0' } } });

/** Kraken's GET /0/public/Ticker?pair=...: per pair (Kraken's names), c = [last trade price, lot volume]. */
export const krakenAnswer = (pairs: Record<string, string>) => ({
  error: [],
  result: Object.fromEntries(
    Object.entries(pairs).map(([pair, last]) => [pair, { a: [last, '1', '1.000'], b: [last, '1', '1.000'], c: [last, '0.01000000'], v: ['1', '2'] }]),
  ),
});

export const seconds = (ms: number) => Math.floor(ms / 1000);

/** Polls `probe` until it answers something other than null. */
export async function waitFor<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 45_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown = null;
  while (Date.now() < until) {
    try {
      const value = await probe();
      if (value !== null) return value;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
