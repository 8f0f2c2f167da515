import { Api } from './api';
import { expectSuccess } from './envelope';

/** The background workers that run a pass on demand (their names with BackgroundWork). */
export type WorkerName =
  'invoice-sweeper' | 'webhook-dispatcher' | 'refund-payouts' | 'subscription-scheduler' | 'durable-event-handlers' | 'api-key-usage' | 'partition-retention';

/**
 * Runs one pass of a background worker on the service `api` calls, and returns once it has finished:
 * POST /test_helpers/workers/{name}/run, which the test harness's services have (startServer sets
 * WORKER_PASSES_ON_DEMAND=true outside production). Instead of waiting for the worker's next tick. The
 * webhook dispatcher's pass is the calling key's organization's only (both modes); the others' cover every
 * organization.
 */
export async function runWorkerPass(api: Api, name: WorkerName): Promise<void> {
  expectSuccess(await api.post(`/test_helpers/workers/${name}/run`), 200);
}
