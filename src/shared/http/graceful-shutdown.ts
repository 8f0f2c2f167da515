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
  /** Its responses not yet done, oldest first (more than one only when the client pipelines). */
  responses: Response[];
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
  /**
   * Every connection, each with its responses in flight. Those are kept on the connection (as Node
   * keeps its own requests) rather than in one Set for the process: with such a Set, which every
   * request enters and leaves, the responses and all they hold (request, listeners, headers) stopped
   * dying young: about 460 KB reached the old space per young collection under list load, against
   * 4 KB without it. The likely reason: V8 rebuilds the Set's table every few dozen entries, and a
   * discarded table that had reached the old space points at its entries until a full collection.
   */
  private readonly connections = new Map<Socket, Connection>();

  get active(): number {
    return this.inFlight;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /** Follows the server's connections (call once, before it listens). */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.track(socket));
  }

  private track(socket: Socket): Connection {
    const connection: Connection = { openedAt: Date.now(), served: 0, responses: [] };
    this.connections.set(socket, connection);
    socket.once('close', () => this.connections.delete(socket));
    return connection;
  }

  /**
   * Counts a request from its start until its response is done (or its connection is gone); the
   * returned function ends it and may be called more than once. A request that starts while
   * draining is answered with `Connection: close` so the client does not reuse the connection.
   */
  begin(req: Request, res: Response): () => void {
    this.inFlight++;
    // A TLS request's socket is not the one the server reported: it is followed from its first request.
    const connection = this.connections.get(req.socket) ?? this.track(req.socket);
    connection.responses.push(res);
    if (this.draining) res.setHeader('Connection', 'close');
    let counted = true;
    return () => {
      if (!counted) return;
      counted = false;
      this.inFlight--;
      connection.served++;
      const responses = connection.responses;
      if (responses[0] === res) responses.shift();
      else responses.splice(responses.indexOf(res), 1);
    };
  }

  async drain(server: Server, timeoutMs: number): Promise<DrainResult> {
    const started = Date.now();
    this.draining = true;
    // Responses still to be written tell their clients not to reuse the connection.
    for (const connection of this.connections.values()) {
      for (const res of connection.responses) if (!res.headersSent) res.setHeader('Connection', 'close');
    }
    server.close();
    while (Date.now() - started < timeoutMs) {
      const now = Date.now();
      for (const [socket, c] of this.connections) {
        // idle keep-alive connections go now; a fresh one gets a moment to send its request
        // (one whose request bytes have arrived is left to be parsed and served)
        if (c.responses.length === 0 && (c.served > 0 || (socket.bytesRead === 0 && now - c.openedAt > FIRST_REQUEST_GRACE_MS))) socket.destroy();
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
