import type { INestApplicationContext } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import Redis from 'ioredis';
import type { Logger } from 'pino';
import { Gauge } from 'prom-client';
import { FilesPreflightQuery } from '../modules/files';
import { RailsPreflightQuery } from '../modules/rails';
import { RatesPreflightQuery } from '../modules/rates';
import { AppConfig } from '../shared/config/app-config';
import { TransactionRunner } from '../shared/db/transaction-runner';
import { MetricsRegistry } from '../shared/metrics/metrics-registry';
import {
  type PreflightCheck,
  preflightLine,
  type PreflightReport,
  preflightReport,
  preflightSummary,
  PREFLIGHT_STATUSES,
  serviceSettingsChecks,
  settingStatus,
  statusCounts,
} from '../shared/preflight/preflight-check';
import { CliArgs, CliOutput, switchFlag } from './cli-args';

/**
 * The preflight an operator runs before going live (`cli doctor`), and the service once after it listens.
 * Each module answers its own checks on the query bus (files: storage; rates: sources; rails: nodes,
 * confirmations, wallets), so a new chain family or rate source brings its checks with it; the service's
 * own settings (PUBLIC_BASE_URL, SECRETS_KEY, Redis, the read replicas of DATABASE_REPLICA_URLS) are checked here.
 */
export async function runPreflight(app: INestApplicationContext, options: { wallets: boolean } = { wallets: true }): Promise<PreflightReport> {
  const config = app.get(AppConfig);
  const production = config.isProduction;
  const bus = app.get(QueryBus);
  const replicas = app.get(TransactionRunner).replicas;
  const [redis, replicaChecks, files, rates, rails] = await Promise.all([
    redisCheck(config),
    answered('replicas', replicas ? replicas.preflight(production) : Promise.resolve([])),
    answered('files', bus.execute(new FilesPreflightQuery(production))),
    answered('rates', bus.execute(new RatesPreflightQuery(production))),
    answered('rails', bus.execute(new RailsPreflightQuery(production, new Date(), 5_000, options.wallets))),
  ]);
  const settings = serviceSettingsChecks({ production, publicBaseUrl: config.PUBLIC_BASE_URL, secretsKeySet: !!config.SECRETS_KEY });
  return preflightReport([...settings, ...redis, ...replicaChecks, ...files, ...rates, ...rails]);
}

/** A module's checks, or one failed check naming the module when it could not answer at all. */
async function answered(module: string, checks: Promise<PreflightCheck[]>): Promise<PreflightCheck[]> {
  try {
    return await checks;
  } catch (e) {
    const reason = ((e as Error)?.message ?? String(e)).split('\n')[0].replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>');
    return [{ name: `${module}.preflight`, status: 'fail', detail: `the ${module} checks could not run (${reason})` }];
  }
}

/** With REDIS_URL: the shared rate-limit counts answer a PING (without it there is nothing to check). */
async function redisCheck(config: AppConfig): Promise<PreflightCheck[]> {
  if (!config.REDIS_URL) return [];
  const redis = new Redis(config.REDIS_URL, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return [{ name: 'settings.redis', status: 'ok', detail: 'REDIS_URL answers PING: every instance shares the rate-limit counts' }];
  } catch (e) {
    const reason = ((e as Error).message || 'no answer').split('\n')[0].replace(/[a-z]+:\/\/\S+/gi, '<REDIS_URL>');
    return [
      {
        name: 'settings.redis',
        status: settingStatus(config.isProduction),
        detail: `REDIS_URL does not answer (${reason}): each process counts its own rate limits until it does; check Redis and REDIS_URL`,
      },
    ];
  } finally {
    redis.disconnect();
  }
}

/** The report as people read it: one line per check, then the summary. */
export function preflightText(report: PreflightReport): string {
  return [...report.checks.map(preflightLine), '', preflightSummary(report)].join('\n');
}

/** `doctor [--json]`: the report (lines, or one JSON object), exit code 1 when a check failed. */
export async function doctor(args: CliArgs, app: INestApplicationContext): Promise<CliOutput> {
  const report = await runPreflight(app);
  const text = switchFlag(args, 'json') ? JSON.stringify(report, null, 2) : preflightText(report);
  return new CliOutput(text, report.ok ? 0 : 1);
}

/**
 * Once after the service listens, in the background (readiness does not wait for it): the preflight
 * without the wallet list (each organization's first addresses are for the operator's `cli doctor`), the
 * gauge `preflight_checks{status}` in this process, and, when `log` (the first process of the service),
 * one warning line per check that warned or failed and a summary line (a warning when any check did not
 * pass). Warnings, not errors: the service runs on, and the lines say what to fix.
 */
export function preflightAfterListen(app: INestApplicationContext, logger: Logger, log = true): Promise<void> {
  const gauge = new Gauge({
    name: 'preflight_checks',
    help: 'Checks of the preflight run once after the service started (cli doctor runs the same), by status: ok, warn, fail',
    labelNames: ['status'],
    registers: [app.get(MetricsRegistry).registry],
  });
  return runPreflight(app, { wallets: false }).then(
    (report) => {
      const counts = statusCounts(report.checks);
      for (const status of PREFLIGHT_STATUSES) gauge.set({ status }, counts[status]);
      if (!log) return;
      for (const check of report.checks) {
        if (check.status !== 'ok')
          logger.warn({ event: 'preflight_check', check: check.name, status: check.status }, `preflight ${check.status}: ${check.name}: ${check.detail}`);
      }
      const summary = { event: 'preflight', ok: counts.ok, warn: counts.warn, fail: counts.fail };
      const message = `preflight: ${preflightSummary(report)} (node dist/src/cli/main.js doctor for the full list)`;
      if (counts.fail || counts.warn) logger.warn(summary, message);
      else logger.info(summary, message);
    },
    (e: unknown) => logger.warn({ event: 'preflight', err: (e as Error)?.message }, 'preflight could not run'),
  );
}
