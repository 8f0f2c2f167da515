import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * The confirmation count of one watcher step keeps to its budget (CHAIN_COUNT_BUDGET_MS, decisions §22):
 * one organization with thousands of pending transfers (dust sent to its addresses) must not hold the
 * step, whose next scan finds every organization's new payments. Runs the built PaymentRecorder (`npm test`
 * builds first; in a child process, as Nest's packages are ES modules) against a chain state of 500
 * pending transfers of one organization and 2 of another, and a payments port that takes a few
 * milliseconds a report, as the real one does on a busy database.
 */
const ROOT = resolve(__dirname, '..', '..', '..');

const SCRIPT = `
const { PaymentRecorder } = require('./dist/src/modules/rails/watcher/payment-recorder.js');
const HEAD = 1000n;
async function run(budgetMs) {
  const rows = [];
  const add = (org, n) => { for (let i = 0; i < n; i++) rows.push({ idempotency_key: org + ':' + i, organization_id: org, payment_id: 'payment_' + org + i,
    tx_hash: '0x' + i, block_number: '990', confirmations: 1, required_confirmations: 30, counted: false }); };
  add('org_flood', 500);
  add('org_quiet', 2);
  const reported = [];
  const ctx = {
    config: { mode: 'test', network: 'ethereum' },
    follower: { rechecksTransactions: false },
    labels: { network: 'ethereum', mode: 'test' },
    logger: { log() {}, warn() {}, error() {} },
    deps: {
      manager: {},
      orgBatch: 2,
      countBudgetMs: budgetMs,
      clock: { now: () => new Date() },
      run: (work) => work({}),
      commands: { execute: async (command) => { await new Promise((r) => setTimeout(r, 2)); reported.push(command.scope.organizationId); return {}; } },
      state: {
        // A fair batch: at most orgBatch of each organization among those not counted at this head.
        counting: async (m, mode, network, head, orgBatch) => ['org_flood', 'org_quiet'].flatMap((org) => rows.filter((r) => r.organization_id === org && !r.counted).slice(0, orgBatch)),
        setConfirmations: async (tx, mode, network, key) => { rows.find((r) => r.idempotency_key === key).counted = true; },
      },
    },
  };
  const started = Date.now();
  const done = await new PaymentRecorder(ctx).countConfirmations(HEAD, null);
  return { done, reported: reported.length, quiet: reported.filter((o) => o === 'org_quiet').length, ms: Date.now() - started };
}
(async () => {
  process.stdout.write(JSON.stringify({ none: await run(0), short: await run(100), ample: await run(60000) }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

describe('the confirmation count of a watcher step keeps to its budget', () => {
  it("counts one fair batch with no budget, stops once the budget is spent, and counts everything when it allows; the quiet organization's transfers in the first batch each time", () => {
    const run = spawnSync(process.execPath, ['-e', SCRIPT], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    if (run.status !== 0) throw new Error(run.stderr);
    const { none, short, ample } = JSON.parse(run.stdout);
    // No budget: one batch (two of each organization), then the step goes on to read new blocks.
    expect(none).toMatchObject({ done: false, reported: 4, quiet: 2 });
    // 100 ms: some batches, far from the 502 transfers (each report takes 2 ms or more).
    expect(short.done).toBe(false);
    expect(short.quiet).toBe(2);
    expect(short.reported).toBeGreaterThanOrEqual(4);
    expect(short.reported).toBeLessThan(502);
    // A budget that allows it: every transfer counted in the step.
    expect(ample).toMatchObject({ done: true, reported: 502, quiet: 2 });
  });
});
