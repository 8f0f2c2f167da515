import { Inject, Injectable, NestMiddleware } from '@nestjs/common';
import express, { NextFunction, Response } from 'express';
import { parse as parseLossless } from 'lossless-json';
import { AppConfig } from '../config/app-config';
import { BadRequestError, PayloadTooLargeError } from '../errors/domain-error';
import { AppRequest } from './envelope';
import { JsonNumberText } from './json-number';
import { assertStorableText, jsonDepthExceeds, MAX_JSON_DEPTH } from './json-safety';

/** In production, a request that did not arrive over TLS (directly or via a trusted proxy) is refused. */
@Injectable()
export class HttpsOnlyMiddleware implements NestMiddleware {
  constructor(@Inject(AppConfig) private readonly config: AppConfig) {}

  use(req: AppRequest, _res: Response, next: NextFunction): void {
    if (this.config.isProduction && !req.secure) throw new BadRequestError('HTTPS is required: send the request over https://', 'https_required');
    next();
  }
}

function parseNumber(text: string): number | JsonNumberText {
  if (/^-?\d+$/.test(text)) {
    const n = Number(text);
    if (Number.isSafeInteger(n)) return n;
  }
  return new JsonNumberText(text);
}

/**
 * JSON bodies are parsed without ever turning a fractional number into a float: money written as
 * a JSON number (billing schema base_price) reaches the service exactly as the client wrote it.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  private readonly readText: express.RequestHandler;

  constructor(@Inject(AppConfig) config: AppConfig) {
    this.readText = express.text({ type: ['application/json', 'application/*+json'], limit: config.BODY_LIMIT_BYTES });
  }

  async use(req: AppRequest, res: Response, next: NextFunction): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the body parser's own errors pass through; the catch below reads their type
      this.readText(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    }).catch((err: { type?: string; status?: number; message?: string }) => {
      if (err.type === 'entity.too.large') throw new PayloadTooLargeError('The request body is larger than the limit');
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
          throw new BadRequestError(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels`, 'json_too_deep', { body: `must not nest deeper than ${MAX_JSON_DEPTH} levels` });
        }
        try {
          req.body = parseLossless(text, null, parseNumber);
        } catch (e) {
          throw new BadRequestError(`Malformed JSON body: ${(e as Error).message}`, 'malformed_json');
        }
        assertStorableText(req.body);
      }
    } else if (req.body === undefined && ['POST', 'PUT', 'PATCH'].includes(req.method) && !req.is('multipart/form-data')) {
      const type = req.headers['content-type'];
      if (type && req.headers['content-length'] !== '0') {
        throw new BadRequestError(`Unsupported Content-Type "${type}": send application/json`, 'unsupported_content_type');
      }
      req.body = {};
    }
    next();
  }
}
