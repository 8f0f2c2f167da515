import { createServer, Server, Socket } from 'node:net';

/**
 * A TCP relay between the service and the chain node, on its own loopback port: stopping it is an RPC
 * outage as the watcher sees it (connections refused) while the chain goes on; starting it again on the
 * same port ends the outage.
 */
export class RpcProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(readonly port: number, private readonly targetPort: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = new Socket();
      this.sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      upstream.connect(this.targetPort, '127.0.0.1', () => {
        client.pipe(upstream);
        upstream.pipe(client);
      });
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(this.port, '127.0.0.1', () => resolve()));
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
