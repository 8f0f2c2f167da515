import { connect, createServer, Server, Socket } from 'node:net';

/** One connection through the relay: what each side sent is handed to the hooks, which pass it on (or not). */
export interface RelayedConnection {
  /** 1 for the relay's first connection, 2 for the next... */
  id: number;
  toServer(chunk: Buffer): void;
  toClient(chunk: Buffer): void;
  /**
   * Runs `step` (passing a chunk on, say) `ms` from now, and never before a step handed over earlier
   * on this connection: a relay that holds answers must not reorder them. Separate timers would:
   * Node counts a timer from the start of the current turn of the event loop, so a shorter timer set
   * later in a long turn can come due before a longer one set in an earlier turn.
   */
  later(ms: number, step: () => void): void;
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
    /** A TCP address, or a Unix socket's path. */
    private readonly target: { host: string; port: number } | { path: string },
    private readonly hooks: RelayHooks = {},
  ) {}

  /**
   * A relay in front of the server of `databaseUrl` (over TCP, or the Unix socket that `?host=` names,
   * as the embedded database's address does); `relayed(databaseUrl)` gives the address through it.
   */
  static forDatabase(databaseUrl: string, hooks: RelayHooks = {}): TcpRelay {
    const direct = new URL(databaseUrl);
    const socketDir = direct.searchParams.get('host');
    const port = Number(direct.searchParams.get('port') || direct.port || 5432);
    return new TcpRelay(socketDir?.startsWith('/') ? { path: `${socketDir}/.s.PGSQL.${port}` } : { host: direct.hostname, port }, hooks);
  }

  /** `databaseUrl` with the relay's address (TCP on the loopback interface) in place of the server's. */
  relayed(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.searchParams.delete('host');
    url.searchParams.delete('port');
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  async start(): Promise<void> {
    let connections = 0;
    this.server = createServer((client) => {
      const upstream = 'path' in this.target ? connect(this.target.path) : connect(this.target.port, this.target.host);
      this.sockets.add(client).add(upstream);
      const steps: { at: number; step: () => void }[] = [];
      let timer: NodeJS.Timeout | null = null;
      const runDue = () => {
        timer = null;
        while (steps.length > 0 && steps[0].at <= Date.now()) steps.shift()!.step();
        if (steps.length > 0) timer = setTimeout(runDue, steps[0].at - Date.now());
      };
      const connection: RelayedConnection = {
        id: ++connections,
        toServer: (chunk) => {
          if (!upstream.destroyed) upstream.write(chunk);
        },
        toClient: (chunk) => {
          if (!client.destroyed) client.write(chunk);
        },
        later: (ms, step) => {
          steps.push({ at: Math.max(Date.now() + ms, steps.at(-1)?.at ?? 0), step });
          if (!timer) timer = setTimeout(runDue, ms);
        },
      };
      client.on('data', (chunk) => (this.hooks.fromClient ? this.hooks.fromClient(connection, chunk) : connection.toServer(chunk)));
      upstream.on('data', (chunk) => (this.hooks.fromServer ? this.hooks.fromServer(connection, chunk) : connection.toClient(chunk)));
      const close = () => {
        if (timer) clearTimeout(timer);
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
