import { runUntilExit as start } from '../../support/server';

describe('configuration checked at start-up', () => {
  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['DB_POOL_SIZE', '0'],
    ['LOG_LEVEL', 'loud'],
    ['NODE_ENV', 'staging'],
    ['DEMO_ORGANIZATION', 'maybe'],
    ['DB_PREPARED_STATEMENTS', 'sometimes'],
    ['DB_CONNECTION_LIFETIME_SECONDS', '-5'],
    ['ADMIN_API_TOKEN', 'short'],
    ['BODY_LIMIT_BYTES', '1.5'],
    ['METRICS_TOKEN', 'short'],
    ['DOCS_ENABLED', 'maybe'],
    ['PUBLIC_BASE_URL', 'api.example.com'],
    ['ADMIN_AUTH_FAILURES', '0'],
    ['RATE_SOURCES', 'binance'],
    ['RATES_REFRESH_SECONDS', '0'],
    ['RATES_MAX_AGE_SECONDS', '5'],
    // Modules' own settings classes (invoices.config.ts, webhooks.config.ts, analytics.config.ts).
    ['INVOICE_SWEEP_SECONDS', 'abc'],
    ['PAYMENT_TOLERANCE', '2'],
    ['WEBHOOK_RETRY_SCHEDULE', 'often'],
    ['ANALYTICS_FOLD_SECONDS', '-1'],
  ])('refuses %s=%s with a message naming the variable', async (name, value) => {
    const { code, output } = await start({ [name]: value });
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(output).toContain('Invalid configuration');
    expect(output).toMatch(new RegExp(`^\\s+${name}="?${value.replace('.', '\\.')}"?: `, 'm'));
    expect(output).not.toContain('listening');
  });

  it('refuses to start in production without PUBLIC_BASE_URL, naming it', async () => {
    const { code, output } = await start({ NODE_ENV: 'production' });
    expect(code).toBe(1);
    expect(output).toMatch(/^\s+PUBLIC_BASE_URL is required with NODE_ENV=production/m);
    expect(output).not.toContain('listening');
  });

  it('refuses a TLS certificate without its key', async () => {
    const { code, output } = await start({ TLS_CERT_FILE: '/tmp/cert.pem' });
    expect(code).toBe(1);
    expect(output).toMatch(/TLS_CERT_FILE and TLS_KEY_FILE must be set together/);
  });
});
