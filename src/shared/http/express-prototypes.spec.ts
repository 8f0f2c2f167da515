import express from 'express';
import type { AddressInfo } from 'node:net';
import { IncomingMessage, ServerResponse } from 'node:http';
import { createExpressServer } from './express-prototypes';

describe('createExpressServer', () => {
  it('hands Express requests and responses that already have its prototypes, and Express serves them', async () => {
    const app = express();
    app.get('/hello/:name', (req, res) => {
      res.json({ hello: req.params.name, query: req.query.x, ip: typeof req.ip });
    });
    const server = createExpressServer(app);
    const seen: Array<{ req: boolean; res: boolean; reqIsMessage: boolean; resIsResponse: boolean }> = [];
    // Runs before Express's own listener, so it sees the objects as the server built them.
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen.push({
        req: Object.getPrototypeOf(req) === app.request,
        res: Object.getPrototypeOf(res) === app.response,
        reqIsMessage: req instanceof IncomingMessage,
        resIsResponse: res instanceof ServerResponse,
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const name of ['ada', 'grace']) {
        const response = await fetch(`http://127.0.0.1:${port}/hello/${name}?x=1`);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ hello: name, query: '1', ip: 'string' });
      }
      expect(seen).toEqual([
        { req: true, res: true, reqIsMessage: true, resIsResponse: true },
        { req: true, res: true, reqIsMessage: true, resIsResponse: true },
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
