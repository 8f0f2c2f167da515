import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

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
      ].join('\n'),
    )
    .addSecurity('api_key', {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: 'sk_test_... or sk_live_..., optionally prefixed with "Bearer "',
    })
    .build();
  return SwaggerModule.createDocument(app, config);
}

export function mountDocs(app: INestApplication): void {
  const document = buildOpenApi(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', customSiteTitle: 'Invoicing and Payments API' });
}
