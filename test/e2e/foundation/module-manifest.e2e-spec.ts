import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, dropDatabase } from '../../support/pg';
import { ROOT, runUntilExit, RunningServer, startServer } from '../../support/server';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { build } = require('../../../scripts/build.js') as { build: (options: { root: string }) => Promise<unknown> };

/**
 * A throwaway module, `greetings`, added to a copy of the service the way docs/DEVELOPING.md says
 * ("Adding a module"): its folder with its manifest, and its line in the module registry. Nothing
 * else platform-owned is touched (app module, main.ts, .dependency-cruiser.cjs), and the copy's
 * service serves its route, checks its setting at start-up, and its boundary rules hold.
 */
const GREETINGS: Record<string, string> = {
  'greetings.config.ts': `
export interface GreetingsConfig {
  word: string;
}

export function loadGreetingsConfig(env: NodeJS.ProcessEnv = process.env): GreetingsConfig {
  const word = env.GREETINGS_WORD ?? 'hello';
  if (!/^[a-z]+$/.test(word)) throw new Error(\`GREETINGS_WORD must be lowercase letters (got "\${word}")\`);
  return { word };
}
`,
  'greetings.module.ts': `
import { Controller, Get, Module } from '@nestjs/common';
import { Public } from '../../shared/auth/auth.decorators';
import { loadGreetingsConfig } from './greetings.config';

@Controller('greetings')
class GreetingsController {
  @Public()
  @Get()
  greet(): { word: string } {
    return { word: loadGreetingsConfig(process.env).word };
  }
}

@Module({ controllers: [GreetingsController] })
export class GreetingsModule {}
`,
  'manifest.ts': `
import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { loadGreetingsConfig } from './greetings.config';
import { GreetingsModule } from './greetings.module';

export const manifest = {
  name: 'greetings',
  nestModule: GreetingsModule,
  uses: ['rates'],
  owner: '@greetings-team',
  docs: 'docs/greetings.md',
  loadConfig: loadGreetingsConfig,
} satisfies ModuleManifest;
`,
  // Allowed by its manifest (uses rates) ...
  'uses-rates.ts': `import { RatesModule } from '../rates';\nexport const rates = RatesModule;\n`,
  // ... and not allowed: quotes is not in its uses.
  'uses-quotes.ts': `import { QuotesModule } from '../quotes';\nexport const quotes = QuotesModule;\n`,
};

/** The registration: one import and one entry in src/module-registry.ts. */
function register(registry: string): string {
  const withImport = registry.replace(
    "import { manifest as health } from './modules/health/manifest';",
    "import { manifest as greetings } from './modules/greetings/manifest';\nimport { manifest as health } from './modules/health/manifest';",
  );
  // After the list's last entry, whichever module that is.
  const withEntry = withImport.replace(/(\n\s+)(\w+),\n\];/, '$1$2,$1greetings,\n];');
  if (withEntry === registry || !withEntry.includes('greetings,\n];') || !withEntry.includes("from './modules/greetings/manifest'"))
    throw new Error('src/module-registry.ts changed shape: update how this test registers its module');
  return withEntry;
}

describe('a module added by its manifest alone', () => {
  let tree: string;

  beforeAll(async () => {
    tree = mkdtempSync(join(tmpdir(), 'ipa-manifest-'));
    // The service's tree, copied (sources) or linked (what the copy only reads).
    cpSync(join(ROOT, 'src'), join(tree, 'src'), { recursive: true });
    mkdirSync(join(tree, 'scripts'));
    for (const file of ['.dependency-cruiser.cjs', 'tsconfig.json', 'package.json', 'scripts/build.js', 'scripts/module-manifests.cjs'])
      cpSync(join(ROOT, file), join(tree, file));
    for (const link of ['node_modules', 'migrations', 'openapi.json']) symlinkSync(join(ROOT, link), join(tree, link));

    mkdirSync(join(tree, 'src', 'modules', 'greetings'));
    for (const [file, text] of Object.entries(GREETINGS)) writeFileSync(join(tree, 'src', 'modules', 'greetings', file), text.trimStart());
    const registry = join(tree, 'src', 'module-registry.ts');
    writeFileSync(registry, register(readFileSync(registry, 'utf8')));
    await build({ root: tree });
  }, 120_000);

  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  it('touches no platform file but the registry line', () => {
    for (const file of ['src/app.module.ts', 'src/main.ts', 'src/bootstrap.ts', '.dependency-cruiser.cjs', 'src/shared/ids/ids.ts'])
      expect(readFileSync(join(tree, file), 'utf8')).toBe(readFileSync(join(ROOT, file), 'utf8'));
  });

  it('is known to the module-boundary rules from its manifest', () => {
    const res = spawnSync(join(ROOT, 'node_modules', '.bin', 'depcruise'), ['--config', '.dependency-cruiser.cjs', 'src'], {
      cwd: tree,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const output = `${res.stdout}${res.stderr}`;
    expect(output).toContain('error module-map:greetings: src/modules/greetings/uses-quotes.ts → src/modules/quotes/index.ts');
    // Its allowed use passes, and it is mapped (not reported as unmapped); the rest of the tree still keeps every rule.
    expect(output).not.toContain('uses-rates.ts');
    expect(output).not.toContain('unmapped-module');
    expect(output).toContain('1 dependency violations (1 errors');
    expect(res.status).not.toBe(0);
  });

  it('checks its settings at start-up: a bad value stops the service, naming the setting', async () => {
    const { code, output } = await runUntilExit({ GREETINGS_WORD: 'Not A Word' }, join(tree, 'dist', 'src', 'main.js'));
    expect(code).not.toBe(0);
    expect(output).toContain('GREETINGS_WORD must be lowercase letters');
    // The real service does not know the setting: the same value starts it past the settings check (it stops on the unreachable database instead).
    const real = await runUntilExit({ GREETINGS_WORD: 'Not A Word' }, undefined, { until: 'Unable to connect to the database' });
    expect(real.output).toContain('Unable to connect to the database');
    expect(real.output).not.toContain('GREETINGS_WORD');
  }, 60_000);

  describe('served', () => {
    let server: RunningServer;
    let databaseUrl: string | undefined;

    beforeAll(async () => {
      const pg = process.env.TEST_PG_SERVER_URL;
      if (pg) databaseUrl = await createDatabase(pg);
      server = await startServer({ main: join(tree, 'dist', 'src', 'main.js'), databaseUrl, env: { GREETINGS_WORD: 'bonjour' } });
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
      const pg = process.env.TEST_PG_SERVER_URL;
      if (pg && databaseUrl) await dropDatabase(pg, databaseUrl);
    });

    it('answers its route, with its setting', async () => {
      const res = await fetch(`${server.baseUrl}/greetings`);
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).toContain('"word":"bonjour"');
    });

    it('serves the registered modules beside it', async () => {
      const res = await fetch(`${server.baseUrl}/health/ready`);
      expect(res.status).toBe(200);
    });
  });
});
