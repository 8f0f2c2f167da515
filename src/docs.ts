import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { PUBLIC_SECURITY_MARKER } from './shared/auth/auth.decorators';

export function buildOpenApi(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Invoicing and Payments API')
    .setVersion('1.0.0')
    .setDescription(
      [
        'HTTP JSON API for invoices, payments, quotes, catalog products, files and dashboards.',
        '',
        "Authenticate with the organization's API key in the `Authorization` header, bare or as `Bearer <key>`.",
        '`sk_test_` keys see test-mode data only and `sk_live_` keys live-mode data only.',
        'Every response is wrapped in the envelope `{status, data, error, message, env, log, validator, support_id}`;',
        'errors also carry a stable `code`. Money amounts are decimal strings with 30 fractional digits;',
        'timestamps are UTC `YYYY-MM-DD HH:MM:SS`.',
        '',
        'A request body may carry only the fields its schema lists (`additionalProperties: false`), at every depth:',
        'any other field is refused with 400 `validation_failed`, and `validator` names each one by its path',
        '(`{"customer_emial": "is not a known field"}`, `{"items.0.pricee": "is not a known field"}`), so a misspelt',
        'field is never dropped unread. Objects documented as free maps (`metadata`) take any keys. A route without',
        'a request body refuses a JSON body with fields the same way. Unknown query parameters are ignored.',
      ].join('\n'),
    )
    .addSecurity('api_key', {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'sk_test_... or sk_live_..., optionally prefixed with "Bearer "',
    })
    .addSecurity('admin_token', {
      type: 'apiKey',
      in: 'header',
      name: 'X-Admin-Token',
      description: 'The ADMIN_API_TOKEN of the deployment (operator routes under /admin)',
    })
    // Relative: the paths are served from the address the document was fetched from. A client sets its own base URL.
    .addServer('/', 'This service')
    .build();
  return tidyDocument(SwaggerModule.createDocument(app, config));
}

/**
 * Two rewrites Nest's generator cannot express through decorators:
 * - public routes (`@Public()`) carry the placeholder scheme PUBLIC_SECURITY_MARKER, which becomes
 *   `security: []` (no key), or disappears beside a real scheme (the operator routes' admin token);
 * - an `allOf` holding a single `$ref` and nothing beside it (what Nest writes for an enum property
 *   with `enumName`) becomes that `$ref`.
 */
export function tidyDocument(doc: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      const security = (op as { security?: Array<Record<string, string[]>> }).security;
      if (security?.some((s) => PUBLIC_SECURITY_MARKER in s)) {
        (op as { security?: unknown }).security = security.filter((s) => !(PUBLIC_SECURITY_MARKER in s));
      }
    }
  }
  const unwrap = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(unwrap);
    const record = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(record)) {
      const single = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
      if (single && Object.keys(single).length === 1 && Array.isArray(single.allOf) && single.allOf.length === 1) record[key] = single.allOf[0];
      unwrap(record[key]);
    }
  };
  unwrap(doc.paths);
  unwrap(doc.components);
  closeRequestBodies(doc);
  return doc;
}

/** The sentence a closed request schema carries in its description (and so in the client's doc comments). */
export const CLOSED_NOTE = 'Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator.';

/**
 * Request bodies refuse fields they do not declare (the validation pipe's `forbidNonWhitelisted`), so
 * every object schema a request body reaches (its DTO, nested DTOs through `$ref`, inline objects with
 * `properties`) gets `additionalProperties: false`. A schema that already says what its extra keys may
 * be (`metadata`: `additionalProperties: { type: string }`) is a free map and stays as it is, and so does
 * an object without `properties`. A schema a response also uses would be closed for it too, which is
 * harmless: the service writes only declared fields.
 */
export function closeRequestBodies(doc: OpenAPIObject): void {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, unknown>;
  const seen = new Set<string>();
  const close = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const schema = node as Record<string, unknown>;
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.split('/').pop() as string;
      if (!seen.has(name)) {
        seen.add(name);
        close(schemas[name]);
      }
      return;
    }
    if (schema.properties && typeof schema.properties === 'object' && schema.additionalProperties === undefined) {
      schema.additionalProperties = false;
      // Said in words too, so the generated client's types carry it as a doc comment.
      schema.description = typeof schema.description === 'string' ? `${schema.description} ${CLOSED_NOTE}` : CLOSED_NOTE;
    }
    for (const child of Object.values((schema.properties ?? {}) as Record<string, unknown>)) close(child);
    close(schema.items);
    for (const key of ['oneOf', 'anyOf'] as const) if (Array.isArray(schema[key])) (schema[key] as unknown[]).forEach(close);
    // A lone allOf member is a `$ref` with a description beside it; several would be a composition, which closed members would break.
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1) close(schema.allOf[0]);
  };
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      const body = (op as { requestBody?: { content?: Record<string, { schema?: unknown }> } } | undefined)?.requestBody;
      for (const media of Object.values(body?.content ?? {})) close(media.schema);
    }
  }
}

/** Which of the routes a deployment switches on it answers: the operator API and the movable test clock. */
export interface EnabledRoutes {
  admin: boolean;
  clock: boolean;
}

/**
 * The document a deployment serves: the committed document (every route the service has) less the routes
 * this deployment answers 404 on, so /docs never offers a call that cannot work here.
 */
export function documentFor(doc: OpenAPIObject, enabled: EnabledRoutes): OpenAPIObject {
  const off = (path: string) => (!enabled.admin && /^\/admin(\/|$)/.test(path)) || (!enabled.clock && /^\/test_helpers\/clock(\/|$)/.test(path));
  return { ...doc, paths: Object.fromEntries(Object.entries(doc.paths).filter(([path]) => !off(path))) };
}

/**
 * Mounts /docs and /openapi.json. The document is built on the first request for either, not at start:
 * scanning every route and schema takes a good part of a start's CPU and keeps the document in memory in
 * every process, while most processes never serve it (@nestjs/swagger keeps it once built).
 */
export function mountDocs(app: INestApplication, enabled: EnabledRoutes): void {
  SwaggerModule.setup('docs', app, () => documentFor(buildOpenApi(app), enabled), {
    jsonDocumentUrl: 'openapi.json',
    customSiteTitle: 'Invoicing and Payments API',
  });
}
