import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Request, Response } from 'express';
import { HttpDrain } from './graceful-shutdown';

/** A server whose requests wait until released, each counted by the drain like the service's. */
function heldServer(drain: HttpDrain, attach = true): { server: Server; held: Array<() => void>; arrived: () => number } {
  const held: Array<() => void> = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const end = drain.begin(req as Request, res as Response);
    res.once('close', end);
    held.push(() => res.end(`done ${req.url}`));
  });
  if (attach) drain.attach(server);
  return { server, held, arrived: () => held.length };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}

function rawConnection(port: number): Promise<{ socket: Socket; text: () => string; closed: Promise<void> }> {
  return new Promise((resolve) => {
    let text = '';
    const socket = connect(port, '127.0.0.1', () => resolve({ socket, text: () => text, closed }));
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
  });
}

describe('HttpDrain', () => {
  it.each([
    ['the server reported the connection', true],
    ['the connection was never reported (as with TLS sockets)', false],
  ])('answers every response still in flight with Connection: close, then lets them finish (%s)', async (_case, attach) => {
    const drain = new HttpDrain();
    const { server, held, arrived } = heldServer(drain, attach);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const connections = await Promise.all([rawConnection(port), rawConnection(port), rawConnection(port)]);
    // The first connection has already been served once (keep-alive) before its second request.
    connections[0].socket.write('GET /first HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => arrived() === 1);
    held[0]();
    await until(() => connections[0].text().includes('done /first'));
    connections.forEach(({ socket }, i) => socket.write(`GET /c${i} HTTP/1.1\r\nHost: x\r\n\r\n`));
    await until(() => arrived() === 4);
    expect(drain.active).toBe(3);

    const drained = drain.drain(server, 5_000);
    expect(drain.isDraining).toBe(true);
    for (const release of held.slice(1).reverse()) release();
    const result = await drained;
    await Promise.all(connections.map((c) => c.closed));

    expect(result.cut).toBe(0);
    expect(drain.active).toBe(0);
    expect(connections[0].text()).toMatch(/^HTTP\/1\.1 200[\s\S]*done \/first/);
    expect(connections[0].text().split('HTTP/1.1 200')[1]).not.toMatch(/connection: close/i);
    connections.forEach(({ text }, i) => {
      const last = text()
        .split(/(?=HTTP\/1\.1 )/)
        .pop();
      expect(last).toMatch(new RegExp(`^HTTP/1\\.1 200[\\s\\S]*connection: close[\\s\\S]*done /c${i}$`, 'i'));
    });
  });

  it('closes an idle keep-alive connection at once and reports a request still held at the deadline as cut', async () => {
    const drain = new HttpDrain();
    const { server, arrived } = heldServer(drain);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const idle = await rawConnection(port);
    const stuck = await rawConnection(port);
    stuck.socket.write('GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => arrived() === 1);

    const result = await drain.drain(server, 300);
    await Promise.all([idle.closed, stuck.closed]);
    expect(result.cut).toBe(1);
    expect(idle.text()).toBe('');
  });
});
