import { Api } from '../../support/api';
import { expectSuccess } from '../../support/envelope';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { startServer } from '../../support/server';

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
