import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IsolatedService, startIsolatedService } from '../../support/isolated';
import { ROOT } from '../../support/server';

/** The shell blocks of a docs page marked `<!-- docs-example -->`, in order, as written. */
function exampleBlocks(page: string): string[] {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
  return [...text.matchAll(/<!-- docs-example -->\n```bash\n([\s\S]*?)\n```/g)].map((m) => m[1]);
}

/** The comment lines of a block that show what the command above them prints (a comment right after a command line). */
function shownOutputs(block: string): string[] {
  const lines = block.split('\n');
  return lines.filter((line, i) => line.startsWith('# ') && i > 0 && !lines[i - 1].startsWith('#')).map((line) => line.slice(2));
}

/** A shown output as a pattern: `...` stands for any text (ids, the rest of a 30-digit amount). */
function asPattern(shown: string): RegExp {
  const parts = shown.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.*')}$`, 'm');
}

jest.setTimeout(120_000);

describe('docs: the catalog and subscriptions examples, run as written', () => {
  const blocks = [...exampleBlocks('catalog.md'), ...exampleBlocks('subscriptions.md')];
  let service: IsolatedService;
  beforeAll(async () => {
    service = await startIsolatedService({ CLOCK_CONTROL: 'true', SUBSCRIPTIONS_TICK_SECONDS: '1' });
  });
  afterAll(async () => service?.stop());

  it('has its blocks marked on both pages', () => {
    expect(exampleBlocks('catalog.md').length).toBeGreaterThanOrEqual(2);
    expect(exampleBlocks('subscriptions.md').length).toBeGreaterThanOrEqual(4);
    const script = blocks.join('\n');
    for (const path of ['/products', '/subscriptions', '/usage_events', '/usage_events/batch', '/upcoming_invoice', '/cancel']) expect(script).toContain(path);
  });

  it('prints what the pages show, with a test key against a running service', async () => {
    const org = await service.createOrg('Docs example shop');
    const script = ['set -euo pipefail', ...blocks].join('\n');
    const run = spawnSync('bash', ['-c', script], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 90_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', API: service.server.baseUrl, KEY: org.testKey, LANG: 'C.UTF-8' },
    });
    expect(run.stderr + run.stdout).not.toMatch(/error/i);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const shown = blocks.flatMap(shownOutputs);
    expect(shown.length).toBeGreaterThanOrEqual(9);
    const printed = run.stdout.split('\n').filter((line) => line !== '');
    // One printed line per shown output, in order, each matching it.
    expect(printed.length).toBe(shown.length);
    shown.forEach((expected, i) => expect([i, printed[i]]).toEqual([i, expect.stringMatching(asPattern(expected))]));
  });
});
