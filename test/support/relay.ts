import { connect, createServer, Server, Socket } from 'node:net';

/** One connection through the relay: what each side sent is handed to the hooks, which pass it on (or not). */
export interface RelayedConnection {
  /** 1 for the relay's first connection, 2 for the next... */
  id: number;
  toServer(chunk: Buffer): void;
  toClient(chunk: Buffer): void;
}

export interface RelayHooks {
  /** Default: passed on at once. */
  fromClient?(connection: RelayedConnection, chunk: Buffer): void;
  /** Default: passed on at once. */
  fromServer?(connection: RelayedConnection, chunk: Buffer): void;
}

/**
 * A TCP relay in front of a server (PostgreSQL, for the service's connections), for tests that need
 * to see or change what passes between them: a connection that stops hearing its server, answers
 * that come late. Each side's chunks go to the hooks, which decide what is passed on and when.
 */
export class TcpRelay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    private readonly target: { host: string; port: number },
    private readonly hooks: RelayHooks = {},
  ) {}

  /** A relay in front of the server of `databaseUrl`; `relayed(databaseUrl)` gives the address through it. */
  static forDatabase(databaseUrl: string, hooks: RelayHooks = {}): TcpRelay {
    const direct = new URL(databaseUrl);
    return new TcpRelay({ host: direct.hostname, port: Number(direct.port || 5432) }, hooks);
  }

  /** `databaseUrl` with the relay's address in place of the server's. */
  relayed(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  async start(): Promise<void> {
    let connections = 0;
    this.server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      this.sockets.add(client).add(upstream);
      const connection: RelayedConnection = {
        id: ++connections,
        toServer: (chunk) => {
          if (!upstream.destroyed) upstream.write(chunk);
        },
        toClient: (chunk) => {
          if (!client.destroyed) client.write(chunk);
        },
      };
      client.on('data', (chunk) => (this.hooks.fromClient ? this.hooks.fromClient(connection, chunk) : connection.toServer(chunk)));
      upstream.on('data', (chunk) => (this.hooks.fromServer ? this.hooks.fromServer(connection, chunk) : connection.toClient(chunk)));
      const close = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
