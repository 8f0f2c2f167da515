import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import express, { NextFunction, Response } from 'express';
import { AppConfig } from '../config/app-config';
import { BadRequestError, PayloadTooLargeError } from '../errors/domain-error';
import { AppRequest } from './envelope';
import { JsonNumberText, parseJsonExactly } from './json-number';
import { assertNoReservedKeys, assertStorableText, jsonDepthExceeds, MAX_JSON_DEPTH } from './json-safety';

/**
 * Paths that answer plain HTTP in every mode: the health checks, which load balancers and
 * orchestrators send to each instance over plain HTTP, and which return no data.
 */
const PLAIN_HTTP_PATHS = new Set(['/health', '/health/', '/health/ready', '/health/ready/']);

export function answersPlainHttp(originalUrl: string): boolean {
  const query = originalUrl.indexOf('?');
  return PLAIN_HTTP_PATHS.has(query === -1 ? originalUrl : originalUrl.slice(0, query));
}

/** The refusal of a request that must come over TLS and did not, or null (outside production, over TLS, the health checks). */
export function plainHttpRefusal(config: AppConfig, req: AppRequest): BadRequestError | null {
  if (!config.isProduction || req.secure || answersPlainHttp(req.originalUrl)) return null;
  return new BadRequestError('HTTPS is required: send the request over https://', 'https_required');
}

/**
 * In production, a request that did not arrive over TLS (directly or via a trusted proxy) is
 * refused, except the health checks. (The docs routes, which Express matches before Nest's
 * middleware, are refused the same way where they are mounted: service.ts.)
 */
@Injectable()
export class HttpsOnlyMiddleware implements NestMiddleware {
  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  use(req: AppRequest, _res: Response, next: NextFunction): void {
    const refusal = plainHttpRefusal(this.config, req);
    if (refusal) throw refusal;
    next();
  }
}

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * Reads and parses a request's JSON body, without ever turning a fractional number into a float:
 * money written as a JSON number (billing schema base_price) reaches the service exactly as the
 * client wrote it.
 *
 * It is not a middleware: the API key guard calls it once the request is authenticated and within
 * its budget, so an unknown route (Nest's 404 runs no guard), a missing or wrong key and a request
 * over its rate limit are refused without their body being read or parsed. The caller chooses the
 * limit (keyless payer calls get a small one). A declared Content-Length over the limit is refused
 * at once, before a byte of the body is read.
 */
@Injectable()
export class JsonBodyReader {
  private readonly readers = new Map<number, express.RequestHandler>();

  private readerFor(limit: number): express.RequestHandler {
    let reader = this.readers.get(limit);
    if (!reader) {
      reader = express.text({ type: JSON_TYPES, limit });
      this.readers.set(limit, reader);
    }
    return reader;
  }

  private formReader: express.RequestHandler | undefined;

  /** `forms`: the route takes HTML form posts too (flat string fields; JSON stays as below). */
  async read(req: AppRequest, res: Response, limit: number, forms = false): Promise<void> {
    if (req.state.bodyRead) return;
    req.state.bodyRead = true;
    if (forms && req.is('application/x-www-form-urlencoded')) {
      this.formReader ??= express.urlencoded({ extended: false, limit: Math.min(limit, 64 * 1024), parameterLimit: 100 });
      const reader = this.formReader;
      await new Promise<void>((resolve, reject) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the body parser's own errors, mapped below
        reader(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
      }).catch((err: { type?: string }) => {
        if (err.type === 'entity.too.large') throw new PayloadTooLargeError(`The request body is larger than the limit of ${limit} bytes`);
        throw new BadRequestError('The form could not be read', 'malformed_body');
      });
      req.body ??= {};
      // The page reads its fields itself (no validation pipe runs): text the database cannot store is refused here.
      assertStorableText(req.body);
      assertStorableText(req.query);
      return;
    }
    const declared = Number(req.headers['content-length']);
    // Only JSON is read here; a file upload (multipart) has its own limit where it is read.
    if (Number.isFinite(declared) && declared > limit && req.is(JSON_TYPES)) {
      // Refused before a byte is read or parsed; Node discards the rest unparsed, keeping the connection usable.
      throw new PayloadTooLargeError(`The request body is larger than the limit of ${limit} bytes`);
    }
    const readText = this.readerFor(limit);
    await new Promise<void>((resolve, reject) => {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the body parser's own errors pass through; the catch below reads their type
      readText(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    }).catch((err: { type?: string; status?: number; message?: string }) => {
      if (err.type === 'entity.too.large') throw new PayloadTooLargeError(`The request body is larger than the limit of ${limit} bytes`);
      if (err.type === 'charset.unsupported' || err.type === 'encoding.unsupported') {
        throw new BadRequestError('Unsupported body encoding; send UTF-8 JSON', 'unsupported_encoding');
      }
      throw new BadRequestError('The request body could not be read', 'malformed_body');
    });
    if (typeof req.body === 'string') {
      const text = req.body.trim();
      if (text === '') {
        req.body = {};
      } else {
        if (jsonDepthExceeds(text)) {
          throw new BadRequestError(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels`, 'json_too_deep', {
            body: `must not nest deeper than ${MAX_JSON_DEPTH} levels`,
          });
        }
        try {
          req.body = parseJsonExactly(text);
        } catch (e) {
          throw new BadRequestError(`Malformed JSON body: ${(e as Error).message}`, 'malformed_json');
        }
        assertStorableText(req.body);
        assertNoReservedKeys(req.body);
      }
    } else if (req.body === undefined && ['POST', 'PUT', 'PATCH'].includes(req.method) && !req.is('multipart/form-data')) {
      const type = req.headers['content-type'];
      if (type && req.headers['content-length'] !== '0') {
        throw new BadRequestError(`Unsupported Content-Type "${type}": send application/json`, 'unsupported_content_type');
      }
      // A body without a type is not read as JSON, nor taken as none (its filters or fields would be dropped unseen).
      const length = req.headers['content-length'];
      if (!type && ((length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined)) {
        throw new BadRequestError('The body has no Content-Type: send it as application/json', 'unsupported_content_type');
      }
      req.body = {};
    }
    if (forms) {
      // A page's form route reads flat fields from an object: a multipart body (never read here) or JSON that is
      // not an object (null, an array) is refused, and its query is checked as a form's fields are.
      if (req.body === undefined && req.is('multipart/form-data')) {
        throw new BadRequestError('Send the form as application/x-www-form-urlencoded (or a JSON object)', 'unsupported_content_type');
      }
      if (req.body === undefined) req.body = {}; // a page read (GET) has none
      if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body) || req.body instanceof JsonNumberText) {
        throw new BadRequestError('The body must be a form or a JSON object', 'malformed_body');
      }
      assertStorableText(req.query);
    }
  }
}
