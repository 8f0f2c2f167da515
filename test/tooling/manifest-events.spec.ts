import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { manifestEventProblems, moduleEvents } from './manifest-events';

const ROOT = resolve(__dirname, '..', '..');

/** Writes `files` (path relative to the root: text) into a fresh folder; its path. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'manifest-events-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const EVENTS_FILE = (prefix: string, lists: Record<string, string[]>) =>
  [
    `import { DomainEvent } from '../../../shared/events/domain-event';`,
    `import { declareEvents } from '../../../shared/events/event-types';`,
    `export class ${prefix}Event extends DomainEvent<string, object> {}`,
    ...Object.entries(lists).flatMap(([name, types]) => [
      `export const ${name}_EVENT_TYPES = ${JSON.stringify(types)} as const;`,
      `export const ${name}_EVENTS = declareEvents(${prefix}Event, ${name}_EVENT_TYPES);`,
    ]),
  ].join('\n');

describe("the manifests' `events` (src/modules/<m>/manifest.ts)", () => {
  it('list exactly the event types each module declares, and every type it emits', () => {
    expect(manifestEventProblems(ROOT)).toEqual([]);
  });

  it('are read as the lists the modules declare (the check sees real data)', () => {
    const invoices = moduleEvents(ROOT, 'invoices');
    expect(invoices.listed).toEqual(expect.arrayContaining(['invoice.created', 'invoice.completed']));
    expect(invoices.declared.sort()).toEqual([...invoices.listed].sort());
    expect(invoices.definitions).toContain('INVOICE_EVENTS');
    expect(invoices.emitted.map((e) => e.type)).toContain('invoice.expired');
    expect(moduleEvents(ROOT, 'rails').listed.sort()).toEqual(['transfer.unmatched', 'wallet.gap_warning']);
  });

  it('fail on a type listed and never declared, declared and not listed, emitted and not listed, or emitted by another module', () => {
    const root = tree({
      'src/modules/alpha/events/alpha.events.ts': EVENTS_FILE('Alpha', { ALPHA: ['alpha.made', 'alpha.gone'], ALPHA_EXTRA: ['alpha.extra'] }),
      'src/modules/alpha/manifest.ts': [
        `import type { ModuleManifest } from '../../shared/modules/module-manifest';`,
        `import { AlphaModule } from './alpha.module';`,
        `import { ALPHA_EVENT_TYPES } from './events/alpha.events';`,
        `export const manifest = { name: 'alpha', nestModule: AlphaModule, uses: [], events: [...ALPHA_EVENT_TYPES, 'alpha.ghost'] } satisfies ModuleManifest;`,
      ].join('\n'),
      'src/modules/alpha/commands/make.ts': [
        `import { ALPHA_EVENTS, ALPHA_EXTRA_EVENTS } from '../events/alpha.events';`,
        `export const make = (outbox: any, m: any, s: any) => outbox.record(m, s, ALPHA_EVENTS['alpha.made'], {});`,
        `export const extra = (outbox: any, m: any, s: any) => outbox.record(m, s, ALPHA_EXTRA_EVENTS['alpha.extra'], {});`,
      ].join('\n'),
      'src/modules/beta/events/beta.events.ts': EVENTS_FILE('Beta', { BETA: ['beta.done'] }),
      'src/modules/beta/manifest.ts': [
        `import { BETA_EVENT_TYPES } from './events/beta.events';`,
        `export const manifest = { name: 'beta', uses: ['alpha'], events: [...BETA_EVENT_TYPES] };`,
      ].join('\n'),
      'src/modules/beta/commands/copy.ts': [
        `import { ALPHA_EVENTS } from '../../alpha';`,
        `import { BETA_EVENTS } from '../events/beta.events';`,
        `export const copy = (outbox: any, m: any, s: any) => outbox.record(m, s, ALPHA_EVENTS['alpha.made'], {});`,
        `export const done = (outbox: any, m: any, s: any, type: 'beta.done') => outbox.record(m, s, BETA_EVENTS[type], {});`,
      ].join('\n'),
    });
    try {
      expect(manifestEventProblems(root).sort()).toEqual(
        [
          'alpha: its manifest lists alpha.ghost, which the module never declares',
          'alpha: declares alpha.extra, which its manifest does not list',
          'alpha: src/modules/alpha/commands/make.ts emits alpha.extra, which its manifest does not list',
          'beta: src/modules/beta/commands/copy.ts emits ALPHA_EVENTS[alpha.made], an event of the alpha module',
        ].sort(),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
