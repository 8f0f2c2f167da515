import { manifest as analytics } from './modules/analytics/manifest';
import { manifest as checkout } from './modules/checkout/manifest';
import { manifest as managementConsole } from './modules/console/manifest';
import { manifest as events } from './modules/events/manifest';
import { manifest as files } from './modules/files/manifest';
import { manifest as health } from './modules/health/manifest';
import { manifest as invoices } from './modules/invoices/manifest';
import { manifest as organizations } from './modules/organizations/manifest';
import { manifest as payments } from './modules/payments/manifest';
import { manifest as payouts } from './modules/payouts/manifest';
import { manifest as products } from './modules/products/manifest';
import { manifest as providers } from './modules/providers/manifest';
import { manifest as quotes } from './modules/quotes/manifest';
import { manifest as rails } from './modules/rails/manifest';
import { manifest as rates } from './modules/rates/manifest';
import { manifest as refunds } from './modules/refunds/manifest';
import { manifest as subscriptions } from './modules/subscriptions/manifest';
import { manifest as testClock } from './modules/test-clock/manifest';
import { manifest as webhooks } from './modules/webhooks/manifest';
import type { IdKind } from './shared/ids/ids';
import type { ModuleManifest } from './shared/modules/module-manifest';

/**
 * The one list of the service's modules: their manifests (src/modules/<m>/manifest.ts), in the order
 * Nest loads them (each module's routes go in in this order). Adding a module is one line here and
 * its manifest; the application module, the start-up settings check, the module-boundary rules and
 * CODEOWNERS' check read everything else from the manifest. test/tooling/module-manifests.spec.ts
 * fails when a folder under src/modules/ has a manifest missing from this list.
 */
export const MODULE_MANIFESTS: readonly ModuleManifest[] = [
  health,
  organizations,
  products,
  rates,
  quotes,
  files,
  invoices,
  providers,
  payments,
  events,
  webhooks,
  analytics,
  testClock,
  rails,
  refunds,
  payouts,
  checkout,
  subscriptions,
  managementConsole,
];

/**
 * Runs every module's settings loader on `env`: a bad value throws (the loader's message names the
 * setting) before the service says anything else. The modules read their settings again when they start.
 */
export function checkModuleSettings(env: NodeJS.ProcessEnv, manifests: readonly ModuleManifest[] = MODULE_MANIFESTS): void {
  for (const m of manifests) m.loadConfig?.(env);
}

/** The id kinds the modules declare, by module (the kernel's own, `event`, aside). */
export function idKindsOf(manifests: readonly ModuleManifest[] = MODULE_MANIFESTS): Map<IdKind, string> {
  const kinds = new Map<IdKind, string>();
  for (const m of manifests) {
    for (const kind of m.idKinds ?? []) {
      const owner = kinds.get(kind);
      if (owner) throw new Error(`id kind ${kind} is declared by both ${owner} and ${m.name}`);
      kinds.set(kind, m.name);
    }
  }
  return kinds;
}
