import type { Request, Response } from 'express';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface DrainResult {
  /** Requests still running when the time ran out (their connections were cut). */
  cut: number;
  waitedMs: number;
}

interface Connection {
  openedAt: number;
  served: number;
  active: number;
}

/** How long a connection accepted just before the stop may take to send its first request. */
const FIRST_REQUEST_GRACE_MS = 2000;

/**
 * Lets a stopping process finish what it accepted: `drain()` stops accepting connections, lets
 * requests in flight finish, answers them with `Connection: close`, closes keep-alive connections
 * as soon as they are idle, still serves a connection accepted just before the stop whose request
 * is on its way (for a short grace), and resolves when every connection is gone or the time is up.
 */
export class HttpDrain {
  private inFlight = 0;
  private draining = false;
  private readonly connections = new Map<Socket, Connection>();
  private readonly responses = new Set<Response>();

  get active(): number {
    return this.inFlight;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Follows the server's connections (call once, before it listens). */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.connections.set(socket, { openedAt: Date.now(), served: 0, active: 0 });
      socket.once('close', () => this.connections.delete(socket));
    });
  }

  /**
   * Counts a request from its start until its response is done (or its connection is gone); the
   * returned function ends it and may be called more than once. A request that starts while
   * draining is answered with `Connection: close` so the client does not reuse the connection.
   */
  begin(req: Request, res: Response): () => void {
    this.inFlight++;
    this.responses.add(res);
    const connection = this.connections.get(req.socket);
    if (connection) connection.active++;
    if (this.draining) res.setHeader('Connection', 'close');
    let counted = true;
    return () => {
      if (!counted) return;
      counted = false;
      this.inFlight--;
      this.responses.delete(res);
      if (connection) {
        connection.active--;
        connection.served++;
      }
    };
  }

  async drain(server: Server, timeoutMs: number): Promise<DrainResult> {
    const started = Date.now();
    this.draining = true;
    // Responses still to be written tell their clients not to reuse the connection.
    for (const res of this.responses) if (!res.headersSent) res.setHeader('Connection', 'close');
    server.close();
    while (Date.now() - started < timeoutMs) {
      const now = Date.now();
      for (const [socket, c] of this.connections) {
        // idle keep-alive connections go now; a fresh one gets a moment to send its request
        // (one whose request bytes have arrived is left to be parsed and served)
        if (c.active === 0 && (c.served > 0 || (socket.bytesRead === 0 && now - c.openedAt > FIRST_REQUEST_GRACE_MS))) socket.destroy();
      }
      if (this.inFlight === 0 && this.connections.size === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const cut = this.inFlight;
    server.closeAllConnections();
    for (const socket of this.connections.keys()) socket.destroy();
    return { cut, waitedMs: Date.now() - started };
  }
}
