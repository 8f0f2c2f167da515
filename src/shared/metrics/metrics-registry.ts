import { Registry } from 'prom-client';

/**
 * The one Prometheus registry GET /metrics serves. It lives in the kernel so that any module, at
 * any layer, can publish its own metrics here without depending on the module that serves them.
 */
export class MetricsRegistry {
  readonly registry = new Registry();
}
