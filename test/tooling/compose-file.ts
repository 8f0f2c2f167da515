import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './env-scan';

/** Reading docker-compose.yml as docker compose does; used by compose.spec.ts and the replicas' e2e test. */

/** What an operator sets before `docker compose up` (the file's header lists these). */
export const OPERATOR_ENV: Record<string, string> = {
  PUBLIC_BASE_URL: 'https://pay.example.com',
  POSTGRES_PASSWORD: 'a-password-of-our-own',
  SECRETS_KEY: randomBytes(32).toString('base64'),
};

/** A service as docker compose reads it (the fields used here are checked where they are read). */
export type Service = Record<string, any>;
export interface Compose {
  services: Record<string, Service>;
}

/** docker compose's interpolation of one value: $$, $NAME, ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}, ${NAME:+other}. */
export function interpolate(text: string, env: Record<string, string | undefined>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_]\w*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_]\w*)/g,
    (whole, braced?: string, op?: string, arg?: string, bare?: string) => {
      if (whole === '$$') return '$';
      const name = (braced ?? bare)!;
      const value = env[name];
      const set = op?.startsWith(':') ? value !== undefined && value !== '' : value !== undefined;
      if (!op) return value ?? '';
      if (op.endsWith('-')) return set ? value! : (arg ?? '');
      if (op.endsWith('+')) return set ? (arg ?? '') : '';
      if (!set) throw new Error(`${name} is required: ${arg}`);
      return value!;
    },
  );
}

/** A service's environment as name -> raw value (null: passed through from the host's environment). */
export function environmentOf(service: Service): Record<string, string | null> {
  const env: Record<string, unknown> | string[] = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((entry: string) => (entry.includes('=') ? [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)] : [entry, null])),
    );
  }
  return Object.fromEntries(
    Object.entries(env)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, v === null ? null : String(v as string | number | boolean)]),
  );
}

/** The services built from this repository: the replicas of the service. */
export function isApp(service: Service): boolean {
  const context = typeof service.build === 'string' ? service.build : service.build?.context;
  return context === '.' || context === './';
}

/** The compose file, parsed with YAML merge keys (`<<: *app`) as compose reads them. */
export function loadCompose(text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')): Compose {
  return parse(text, { merge: true }) as Compose;
}
