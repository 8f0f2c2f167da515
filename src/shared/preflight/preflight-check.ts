/**
 * The preflight (`cli doctor`, and once after the service listens): checks an operator runs before going
 * live. Each module answers its own checks through a query on the bus (rails: nodes and wallets; rates:
 * sources; files: storage) and the composition root adds the service's own settings. Pure types and
 * decisions only: what asks nodes or servers lives with the module that owns them.
 */
export type PreflightStatus = 'ok' | 'warn' | 'fail';

export interface PreflightCheck {
  /** What was checked, stable and short: `chain.live.bitcoin.txindex`, `rates.source.kraken`, `settings.public_base_url`. */
  name: string;
  status: PreflightStatus;
  /** What was found, and on warn or fail what to do about it. */
  detail: string;
  /** Facts a program may read (the address of a wallet, a node's answer); never a secret. */
  [fact: string]: unknown;
}

export interface PreflightReport {
  /** True when no check failed (warnings allowed). */
  ok: boolean;
  checks: PreflightCheck[];
}

export const PREFLIGHT_STATUSES: readonly PreflightStatus[] = ['ok', 'warn', 'fail'];

export function preflightReport(checks: readonly PreflightCheck[]): PreflightReport {
  return { ok: checks.every((c) => c.status !== 'fail'), checks: [...checks] };
}

/** How many checks have each status. */
export function statusCounts(checks: readonly PreflightCheck[]): Record<PreflightStatus, number> {
  const counts: Record<PreflightStatus, number> = { ok: 0, warn: 0, fail: 0 };
  for (const c of checks) counts[c.status]++;
  return counts;
}

/** One line a person reads: `fail  chain.live.bitcoin.txindex  the node runs without ...`. */
export function preflightLine(check: PreflightCheck): string {
  return `${check.status.padEnd(4)}  ${check.name}  ${check.detail}`;
}

/** The closing line: counts, and whether anything blocks going live. */
export function preflightSummary(report: PreflightReport): string {
  const n = statusCounts(report.checks);
  const verdict = n.fail ? 'fix the failed checks before going live' : n.warn ? 'no check failed; read the warnings' : 'every check passed';
  return `${report.checks.length} checks: ${n.ok} ok, ${n.warn} warn, ${n.fail} fail; ${verdict}`;
}

/**
 * A problem with a setting production needs: a failure in production, a warning elsewhere (development
 * and test deployments run without it on purpose).
 */
export function settingStatus(production: boolean): PreflightStatus {
  return production ? 'fail' : 'warn';
}

/** What the service's own settings need before real traffic (its modules check their own). */
export interface ServiceSettings {
  production: boolean;
  /** PUBLIC_BASE_URL as set (undefined when unset). */
  publicBaseUrl: string | undefined;
  /** Whether SECRETS_KEY is set. */
  secretsKeySet: boolean;
}

/** PUBLIC_BASE_URL set and https, SECRETS_KEY set: fail in production, warn elsewhere. */
export function serviceSettingsChecks(settings: ServiceSettings): PreflightCheck[] {
  const bad = settingStatus(settings.production);
  const checks: PreflightCheck[] = [];
  const base = settings.publicBaseUrl;
  if (!base) {
    checks.push({
      name: 'settings.public_base_url',
      status: bad,
      detail: "PUBLIC_BASE_URL is not set: set it to the service's public https address (checkout links and webhooks carry it)",
    });
  } else if (!/^https:\/\//i.test(base)) {
    checks.push({
      name: 'settings.public_base_url',
      status: bad,
      detail: `PUBLIC_BASE_URL is ${base}, not https: payers open it; put TLS in front and set the https:// address`,
    });
  } else checks.push({ name: 'settings.public_base_url', status: 'ok', detail: `PUBLIC_BASE_URL is ${base}` });
  checks.push(
    settings.secretsKeySet
      ? { name: 'settings.secrets_key', status: 'ok', detail: 'SECRETS_KEY is set (stored secrets and wallet keys are sealed with it)' }
      : {
          name: 'settings.secrets_key',
          status: bad,
          detail: 'SECRETS_KEY is not set: stored secrets are sealed with the public development key; set it from your secret store (docs/production.md)',
        },
  );
  return checks;
}
