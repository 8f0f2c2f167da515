import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { linesWith, startServer } from '../../support/server';

/**
 * The test harness's startServer hands a test the service it started, never another one that happens to
 * answer on the same port: when two Jest workers' services end up on one port, the one that cannot listen
 * must not pass for ready while the other (on another database) answers its readiness probe.
 */
describe('starting a service for a test', () => {
  let service: IsolatedService;

  beforeAll(async () => {
    service = await startIsolatedService();
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('fails, naming EADDRINUSE, when the port it was given is held by another service', async () => {
    const port = service.server.port;
    await expect(startServer(service.databaseUrl ? { databaseUrl: service.databaseUrl, port } : { port })).rejects.toThrow(/EADDRINUSE/);
    // The service that holds the port goes on answering its own keys.
    const org = await service.createOrg('port holder');
    expectSuccess(await new Api(org.testKey, service.server.baseUrl).get('/auth/debug_token'));
  });
});

/**
 * A start runs in the Jest worker's service host (test/support/service-host.cjs) unless the test asks for a process
 * of its own: the same service, checked the same way, refused the same way, stopped with the same code.
 */
describe("a service in the worker's service host", () => {
  let holder: IsolatedService;
  /** TEST_SERVICE_HOST=0 runs every service as a process: the same checks then hold for processes. */
  const hosted = (server: { process?: unknown }) => expect(server.process === undefined).toBe(process.env.TEST_SERVICE_HOST !== '0');

  beforeAll(async () => {
    // A process of its own: the host stays free for the starts below.
    holder = await startIsolatedService({}, { process: true });
  });
  afterAll(async () => {
    await holder?.stop();
  });

  it('answers, stops with code 0 saying so, refuses a taken port naming EADDRINUSE and then serves the next start', async () => {
    expect(holder.server.process).toBeDefined();
    if (!holder.databaseUrl) return expect(holder.server.process?.exitCode).toBeNull(); // embedded database: processes only
    const first = await startServer({ databaseUrl: holder.databaseUrl, env: { LOG_LEVEL: 'info' } });
    hosted(first);
    expect((await fetch(`${first.baseUrl}/health/ready`)).status).toBe(200);
    expect(await first.stop()).toBe(0);
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('"msg":"stopped"');
    await expect(fetch(`${first.baseUrl}/health`)).rejects.toThrow();

    await expect(startServer({ databaseUrl: holder.databaseUrl, port: holder.server.port })).rejects.toThrow(/EADDRINUSE/);
    const next = await startServer({ databaseUrl: holder.databaseUrl, env: { LOG_LEVEL: 'info' } });
    try {
      hosted(next);
      expect(linesWith(next, `listening on 127.0.0.1 port ${next.port}`)).toHaveLength(1);
    } finally {
      expect(await next.stop()).toBe(0);
    }
  });

  it('is killed as a process is when stopped with SIGKILL: no graceful stop, no exit code', async () => {
    if (!holder.databaseUrl) return expect(holder.server.process?.exitCode).toBeNull(); // embedded database: processes only
    const killed = await startServer({ databaseUrl: holder.databaseUrl, env: { LOG_LEVEL: 'info' } });
    hosted(killed);
    expect(await killed.stop('SIGKILL')).toBeNull();
    expect(killed.output()).not.toContain('shutting down');
    await expect(fetch(`${killed.baseUrl}/health`)).rejects.toThrow();
    // The next start gets a new host.
    const again = await startServer({ databaseUrl: holder.databaseUrl });
    hosted(again);
    expect(await again.stop()).toBe(0);
  });
});
