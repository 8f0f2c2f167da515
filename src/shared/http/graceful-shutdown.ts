import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';

export interface DrainResult {
  /** Requests still running when the time ran out (their connections were cut). */
  cut: number;
  waitedMs: number;
}

/**
 * Counts the requests in flight so a stopping process can let them finish: `drain()` stops
 * accepting connections, closes idle keep-alive connections (and every connection as soon as its
 * response is sent: `Connection: close` on anything answered from then on), and resolves when the
 * last request is done or the time is up.
 */
export class HttpDrain {
  private inFlight = 0;
  private draining = false;
  private onIdle: (() => void) | null = null;

  get active(): number {
    return this.inFlight;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  readonly middleware = (_req: Request, res: Response, next: NextFunction): void => {
    this.inFlight++;
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      this.inFlight--;
      if (this.inFlight === 0) this.onIdle?.();
    };
    res.once('finish', done);
    res.once('close', done);
    const writeHead = res.writeHead;
    // A response written while draining tells the client not to reuse this connection.
    res.writeHead = ((...args: Parameters<typeof writeHead>) => {
      if (this.draining && !res.headersSent) res.setHeader('Connection', 'close');
      return writeHead.apply(res, args);
    }) as typeof writeHead;
    next();
  };

  async drain(server: Server, timeoutMs: number): Promise<DrainResult> {
    const started = Date.now();
    this.draining = true;
    server.close();
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    try {
      if (this.inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          this.onIdle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      clearInterval(sweep);
      this.onIdle = null;
    }
    const cut = this.inFlight;
    server.closeAllConnections();
    return { cut, waitedMs: Date.now() - started };
  }
}
