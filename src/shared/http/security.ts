import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { AppConfig } from '../config/app-config';

/** Response headers a browser client may read across origins. */
export const EXPOSED_HEADERS = [
  'X-Request-Id',
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
  'Content-Disposition',
];

/**
 * Security headers (helmet) on every response. The API answers JSON only, so its policy allows
 * nothing to load; the Swagger UI under /docs gets a policy that lets its own scripts, its inline
 * styles and its data: images run. The hosted checkout page (/checkout/...) gets a strict policy of
 * its own: scripts, styles and API calls from the service only (no inline script or style), images
 * from the service or https (the merchant's logo), and frame-ancestors from CHECKOUT_FRAME_ANCESTORS.
 * Cross-origin resource policy is open: the API and the provider images are meant to be used from
 * other origins (CORS decides who may read the API).
 */
export function applySecurityHeaders(app: INestApplication, config: AppConfig): void {
  const common = {
    crossOriginResourcePolicy: { policy: 'cross-origin' as const },
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'no-referrer' as const },
  };
  const api = helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
  });
  const docs = helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        connectSrc: ["'self'"],
        fontSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        frameAncestors: ["'self'"],
        baseUri: ["'self'"],
      },
    },
  });
  const checkout = helmet({ ...common, ...checkoutPolicy(config) });
  app.use((req: Request, res: Response, next: NextFunction) => {
    // Routes match in any letter case (Express's default), so the policy is chosen the same way.
    const path = req.path.toLowerCase();
    const policy = path === '/docs' || path.startsWith('/docs/') ? docs : path.startsWith('/checkout/') ? checkout : api;
    policy(req, res, next);
  });
}

/**
 * The checkout page's policy. PUBLIC_BASE_URL's origin is allowed beside 'self', as the page's
 * links are built on it (a proxy may serve the page under another name than the service's own).
 */
export function checkoutPolicy(config: Pick<AppConfig, 'CHECKOUT_FRAME_ANCESTORS' | 'publicBaseUrl'>): Parameters<typeof helmet>[0] {
  const base = config.publicBaseUrl;
  const self = ["'self'", ...(base ? [new URL(base).origin] : [])];
  const ancestors = config.CHECKOUT_FRAME_ANCESTORS.trim().split(/\s+/);
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: self,
        styleSrc: self,
        imgSrc: [...self, 'https:'],
        connectSrc: self,
        baseUri: ["'none'"],
        formAction: ["'none'"],
        objectSrc: ["'none'"],
        frameAncestors: ancestors,
      },
    },
    // frame-ancestors decides in every current browser; the old header only says the same for 'none'.
    xFrameOptions: ancestors.includes("'none'") ? { action: 'deny' } : false,
  };
}

/**
 * CORS from CORS_ORIGINS: unset sends no CORS headers (browsers on other origins cannot read the
 * API); `*` allows any origin; otherwise a comma-separated list of exact origins.
 */
export function applyCors(app: INestApplication, config: AppConfig): void {
  const raw = config.CORS_ORIGINS?.trim();
  if (!raw) return;
  const origins =
    raw === '*'
      ? '*'
      : raw
          .split(',')
          .map((o) => o.trim().replace(/\/+$/, ''))
          .filter(Boolean);
  app.enableCors({
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}
