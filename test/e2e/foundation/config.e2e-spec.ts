import { spawn } from 'node:child_process';
import { MAIN, ROOT } from '../../support/server';

function start(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', DATABASE_URL: 'postgres://127.0.0.1:1/none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolveRun) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, output });
    }),
  );
}

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
    ['ADMIN_API_TOKEN', 'short'],
    ['BODY_LIMIT_BYTES', '1.5'],
    ['METRICS_TOKEN', 'short'],
    ['DOCS_ENABLED', 'maybe'],
    ['PUBLIC_BASE_URL', 'api.example.com'],
    ['ADMIN_AUTH_FAILURES', '0'],
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
