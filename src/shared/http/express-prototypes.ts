import type { Express } from 'express';
import * as http from 'node:http';
import * as https from 'node:https';
import type { Socket } from 'node:net';

/** What Node's http and https servers take to build each request and response. */
export interface MessageClasses {
  IncomingMessage: typeof http.IncomingMessage;
  ServerResponse: typeof http.ServerResponse;
}

/**
 * Request and response classes whose instances are born with the prototypes Express gives them.
 *
 * Express hands every request and response to `Object.setPrototypeOf(req, app.request)` (and the
 * same for `res`) as they enter the application. Changing the prototype of a live object is a slow
 * path in V8, and after it the request's objects (routing closures, listeners, headers) stop dying
 * young. Measured under list load: about 0.8 MB promoted to the old space per young collection, to
 * wait there for the next full collection; a bare Express server served half the requests a second
 * it serves without the call. When the object already has that prototype the call changes nothing,
 * so the server builds them that way from the start.
 */
export function expressMessageClasses(app: Express): MessageClasses {
  // Plain constructor functions that run Node's own constructors on `this` (both are plain functions
  // in Node). Reflect.construct with these as new.target builds the same objects, but a bare Express
  // server built that way served a third of the requests (V8 seems to derive their hidden class anew
  // at every call).
  function AppRequest(this: http.IncomingMessage, socket: Socket): void {
    (http.IncomingMessage as unknown as (this: http.IncomingMessage, socket: Socket) => void).call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: http.ServerResponse, req: http.IncomingMessage, options?: object): void {
    (http.ServerResponse as unknown as (this: http.ServerResponse, req: http.IncomingMessage, options?: object) => void).call(this, req, options);
  }
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof http.ServerResponse,
  };
}

/** The HTTP server (HTTPS with TLS options) for an Express application, with expressMessageClasses. */
export function createExpressServer(app: Express, httpsOptions?: https.ServerOptions): http.Server {
  const classes = expressMessageClasses(app);
  return httpsOptions ? https.createServer({ ...httpsOptions, ...classes }, app) : http.createServer(classes, app);
}
