import type { Type } from '@nestjs/common';
import type { IdKind } from '../ids/ids';

/**
 * One setting a module reads from the environment, as its docs show it (`.env.example`, the README's
 * settings table): its name, its default as written in the example file, and one line saying what it does.
 */
export interface SettingDoc {
  readonly name: string;
  /** The `.env.example` section it is listed under (`# --- <section> ---`). */
  readonly section: string;
  /** Its value in `.env.example`: the default (empty: unset). */
  readonly default: string;
  /** The comment above it in `.env.example` (one line, or a few separated by newlines). */
  readonly description: string;
  /** Its row in the README's settings table, when it has one: the default and the meaning as the README words them. */
  readonly readme?: {
    readonly default: string;
    readonly meaning: string;
    /** The row's first cell when it documents several settings at once (`` `TLS_CERT_FILE`, `TLS_KEY_FILE` ``); the others then have no row. */
    readonly label?: string;
  };
}

/**
 * What a module says about itself, once, in its `manifest.ts`: everything the platform needs to wire
 * it in (the application's module list, the start-up settings check, the module-boundary rules, the
 * id kinds, CODEOWNERS, the docs). The file holds plain data and references to the module's own
 * files only; it imports nothing but types from the kernel, so tooling (`.dependency-cruiser.cjs`)
 * can read its data without Nest or a build.
 */
export interface ModuleManifest {
  /** The module's folder under src/modules/. */
  readonly name: string;
  /** Its Nest module class. */
  readonly nestModule: Type<unknown>;
  /** The modules it may use (through their index.ts): its allowed dependencies, the module map's row. */
  readonly uses: readonly string[];
  /** The team that reviews its folder and its migrations (CODEOWNERS). */
  readonly owner: `@${string}`;
  /** Its docs page, relative to the repository root (test/tooling/module-manifests.spec.ts checks it exists). */
  readonly docs: `docs/${string}.md`;
  /** Reads and checks its settings; run at start-up, so a bad value stops the service before it says anything else. */
  readonly loadConfig?: (env: NodeJS.ProcessEnv) => unknown;
  /** The settings it reads, documented: `npm run docs:settings` writes them into `.env.example` and the README's table. */
  readonly settings?: readonly SettingDoc[];
  /** Its id kinds (the prefix of `<kind>_<uuid>`). */
  readonly idKinds?: readonly IdKind[];
  /** The event types it declares (webhook subscriptions, `POST /events` filters). */
  readonly events?: readonly string[];
}
