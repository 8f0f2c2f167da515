import express from 'express';
import { request, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EXPORT_COLUMNS } from '../domain/csv';
import { streamCsv } from './csv-stream';

/** Rows a page holds, as an export's list pages do. */
const BATCH = 500;
/** A long customer email on every row: a few pages fill the socket's buffers, so writes must wait for the client. */
const padding = `${'x'.repeat(2000)}@example.com`;

/**
 * An export's streaming on a real HTTP server, with pages from a generator that counts them: what a HEAD request
 * reads, and that a client gone before or during the transfer stops the reads and lets the handler finish.
 */
describe('streamCsv', () => {
  let reads = 0;
  let pages = 0;
  let firstPageGate: Promise<void> = Promise.resolve();
  let sent: Promise<void> | null = null;
  let server: ReturnType<ReturnType<typeof express>['listen']>;
  let port = 0;

  beforeAll(async () => {
    async function* batches(): AsyncGenerator<object[]> {
      for (;;) {
        reads++;
        const n = reads;
        if (n === 1) await firstPageGate;
        yield Array.from({ length: BATCH }, (_, i) => ({ id: `invoice_${n}_${i}`, status: 'PENDING', customer_email: padding }));
        if (n >= pages) return;
      }
    }
    const app = express();
    app.get('/export.csv', (_req, res) => {
      sent = streamCsv(res, EXPORT_COLUMNS.invoices, 'invoices-test.csv', batches, () => undefined);
    });
    await new Promise<void>((resolve) => {
      server = app.listen(0, '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    reads = 0;
    sent = null;
    firstPageGate = Promise.resolve();
  });

  const ask = (method: 'GET' | 'HEAD', onResponse: (req: ClientRequest) => void = () => undefined): ClientRequest => {
    const req = request({ host: '127.0.0.1', port, path: '/export.csv', method }, (res) => {
      res.resume();
      onResponse(req);
    });
    req.on('error', () => undefined);
    req.end();
    return req;
  };
  const finished = async () => {
    while (!sent) await new Promise((r) => setTimeout(r, 5));
    await sent;
  };

  it('answers HEAD with the headers and reads nothing (its body would be thrown away unpaced)', async () => {
    pages = 50;
    const status = await new Promise<{ code: number; type: string | undefined }>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/export.csv', method: 'HEAD' }, (res) => {
        resolve({ code: res.statusCode!, type: res.headers['content-type'] });
        res.resume();
      });
      req.end();
    });
    await finished();
    expect(status).toEqual({ code: 200, type: 'text/csv; charset=utf-8' });
    expect(reads).toBe(0);
  });

  it('stops reading, and finishes, when the client goes away during the transfer', async () => {
    pages = 200;
    // The client takes the headers, then leaves without reading the body: the writes wait, then the socket closes.
    ask('GET', (req) => setTimeout(() => req.destroy(), 50));
    await finished();
    expect(reads).toBeLessThan(pages);
  });

  it('finishes when the client went away before the first page was read', async () => {
    pages = 3;
    let open!: () => void;
    firstPageGate = new Promise((resolve) => (open = resolve));
    const req = ask('GET');
    while (reads === 0) await new Promise((r) => setTimeout(r, 5));
    req.destroy();
    await new Promise((r) => setTimeout(r, 100));
    open();
    await finished();
    expect(reads).toBe(1);
  });
});
