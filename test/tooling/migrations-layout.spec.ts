import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { migrationClasses, migrationFiles } from '../../src/shared/db/data-source';

const ROOT = resolve(__dirname, '..', '..');
const MIGRATIONS = join(ROOT, 'migrations');

/** The folders a migration may sit in: a module's name (src/modules/<name>) or `shared` for the kernel's tables. */
const OWNERS = new Set([...readdirSync(join(ROOT, 'src', 'modules')), 'shared']);

/**
 * The names a database migrated before migrations moved into their owners' folders has recorded in
 * schema_migrations. Each must still be found, under the same name, or that database would run it again.
 */
const RECORDED_BEFORE_THE_MOVE = [
  'Organizations1763700000000',
  'IdempotencyKeys1763700050000',
  'Catalog1763700100000',
  'ExchangeRates1763700200000',
  'Invoices1763700300000',
  'Files1763700400000',
  'ProviderSettings1763700500000',
  'Payments1763700510000',
  'EventsWebhooks1763700600000',
  'AnalyticsRollups1763700700000',
  'IdempotencyApplied1763700700000',
  'ListCountIndexes1763700700000',
  'InvoiceTiming1763700800000',
  'ListCountExpiry1763700900000',
  'AnalyticsWindowCustomers1763701000000',
  'AnalyticsDashboardRead1763701100000',
  'ListPriceCover1763701200000',
  'AnalyticsWriterLock1763701300000',
  'ApiKeyRevision1763701500000',
  'InvoiceCurrencyChanges1763701600000',
  'TestClocks1763701610000',
  'ReceivingWallets1763701800000',
  'ChainWatcher1763701800100',
  'AnalyticsRollupDeltas1763702000000',
  'ChainReversals1763703000000',
  'DepositAddressesWatching1763703000100',
  'WebhookFanOutTrigger1763703100000',
  'ProviderSettingsRevision1763703200000',
  'ExchangeRateOrigins1764000000000',
  'AccountKeyCounters1764000200000',
  'UnattributedTransfers1764000210000',
];

/** Files under `support/` folders: helpers that migrations import, not migrations (migrationFiles skips them). */
const isSupport = (path: string) => path.split(/[\\/]/).includes('support');

function migrationSources(): { owner: string; file: string; text: string }[] {
  return readdirSync(MIGRATIONS, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !isSupport(path))
    .map((path) => ({ owner: path.split(/[\\/]/)[0], file: basename(path), text: readFileSync(join(MIGRATIONS, path), 'utf8') }));
}

describe('migrations/<owner>/', () => {
  const sources = migrationSources();

  it('holds every migration in the folder of the module that owns it (or shared), none at the top', () => {
    expect(sources.length).toBeGreaterThanOrEqual(RECORDED_BEFORE_THE_MOVE.length);
    for (const { owner, file } of sources) {
      expect({ file, owner, known: OWNERS.has(owner) }).toEqual({ file, owner, known: true });
      expect(file).toMatch(/^\d{13}-[a-z0-9-]+\.ts$/);
    }
  });

  it("keeps helpers under an owner's support/ folder, free of migration classes", () => {
    const helpers = readdirSync(MIGRATIONS, { recursive: true, encoding: 'utf8' }).filter((path) => path.endsWith('.ts') && isSupport(path));
    expect(helpers.length).toBeGreaterThan(0);
    for (const path of helpers) {
      expect(OWNERS.has(path.split(/[\\/]/)[0])).toBe(true);
      expect(readFileSync(join(MIGRATIONS, path), 'utf8')).not.toMatch(/implements MigrationInterface/);
    }
  });

  it('names each migration class after its file timestamp, each name once', () => {
    const names = sources.map(({ file, text }) => {
      const name = /name = '([A-Za-z0-9]+)'/.exec(text)?.[1] ?? '';
      expect(name.endsWith(file.slice(0, 13))).toBe(true);
      return name;
    });
    expect(new Set(names).size).toBe(names.length);
    // A database migrated before the move finds every migration it recorded, so none runs twice.
    for (const name of RECORDED_BEFORE_THE_MOVE) expect(names).toContain(name);
  });

  it('hands TypeORM the built classes themselves, one per migration file, in file-name order', () => {
    // The build (npm test runs it first) puts them in dist/migrations/<owner>/, where the service reads them.
    const classes = migrationClasses(join(ROOT, 'dist', 'migrations'));
    const byFileName = [...sources].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    const expected = byFileName.map(({ text }) => /name = '([A-Za-z0-9]+)'/.exec(text)?.[1]);
    expect(classes.map((Migration) => new Migration().name)).toEqual(expected);
  });

  it('runs them as one ordered list across the folders, by file name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
    try {
      for (const [owner, file] of [
        ['rails', '3-c.js'],
        ['analytics', '2-b.js'],
        ['shared', '1-a.js'],
        ['invoices', '2-a.js'],
      ]) {
        mkdirSync(join(dir, owner), { recursive: true });
        writeFileSync(join(dir, owner, file), '');
      }
      writeFileSync(join(dir, 'rails', 'notes.md'), '');
      mkdirSync(join(dir, 'shared', 'support'), { recursive: true });
      writeFileSync(join(dir, 'shared', 'support', '0-helpers.js'), '');
      expect(migrationFiles(dir).map((path) => path.slice(dir.length + 1))).toEqual([
        join('shared', '1-a.js'),
        join('invoices', '2-a.js'),
        join('analytics', '2-b.js'),
        join('rails', '3-c.js'),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
