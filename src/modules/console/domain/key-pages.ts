import type { Mode } from '../../../shared/auth/request-context';
import { html } from './html';
import { hiddenHeading, table } from './table';
import { Notice, page, PageContext } from './pages';
import { may, Role } from './roles';
import type { ConsoleLanguage } from './strings';

/** The keys page's own words (the shared ones come from strings.ts). */
const WORDS = {
  en: {
    name: 'Name',
    last_used: 'Last used',
    never: 'never',
    roll: 'Roll',
    grace: 'Old key keeps working for',
    grace_options: { '0': 'stop at once', '3600': '1 hour', '86400': '24 hours', '259200': '3 days', '604800': '7 days' },
    expires: 'Rolled; accepted until',
    expired: 'Rolled; no longer accepted since',
    rolled: 'Key rolled. The old key is accepted until',
    view_only: 'Your role may view these keys but not change them.',
  },
  de: {
    name: 'Name',
    last_used: 'Zuletzt benutzt',
    never: 'nie',
    roll: 'Erneuern',
    grace: 'Alter Schlüssel gilt noch',
    grace_options: { '0': 'sofort ungültig', '3600': '1 Stunde', '86400': '24 Stunden', '259200': '3 Tage', '604800': '7 Tage' },
    expires: 'Erneuert; gültig bis',
    expired: 'Erneuert; ungültig seit',
    rolled: 'Schlüssel erneuert. Der alte Schlüssel gilt bis',
    view_only: 'Ihre Rolle darf diese Schlüssel sehen, aber nicht ändern.',
  },
} satisfies Record<ConsoleLanguage, unknown>;

export type KeyWords = (typeof WORDS)['en'];

export function keyWords(lang: ConsoleLanguage): KeyWords {
  return WORDS[lang];
}

/** The grace periods a roll offers, in seconds. */
export const GRACE_CHOICES = ['0', '3600', '86400', '259200', '604800'] as const;

export interface KeyView {
  id: string;
  prefix: string;
  name: string;
  read_only: boolean;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  rolled_to: string | null;
  last_used_at: string | null;
}

/**
 * Whether a member may change (create, roll, revoke) a key of this access in `mode`: full keys need
 * `api_keys.manage`, read-only keys `api_keys.read_only` (a developer: any key in test mode, only
 * read-only keys in live mode).
 */
export function mayChangeKey(role: Role, readOnly: boolean, mode: Mode): boolean {
  return may(role, readOnly ? 'api_keys.read_only' : 'api_keys.manage', mode);
}

/** Whether a key is still accepted at `now` (timestamps as the API writes them, UTC). */
function accepted(k: KeyView, now: Date): boolean {
  if (k.revoked_at) return false;
  return !k.expires_at || Date.parse(`${k.expires_at.replace(' ', 'T')}Z`) > now.getTime();
}

/** The API keys page: name, access, created, last used, status; roll and revoke where the role may. */
export function keysPage(
  c: PageContext,
  keys: KeyView[],
  n: Notice,
  secret: string | null,
  rolled: { expires_at: string } | null = null,
  now = new Date(),
): string {
  const s = c.s;
  const w = keyWords(c.lang);
  const full = mayChangeKey(c.member.role, false, c.mode);
  const readOnly = mayChangeKey(c.member.role, true, c.mode);
  const status = (k: KeyView) => {
    if (k.revoked_at) return html`${s.revoked} ${k.revoked_at}`;
    if (k.expires_at) return accepted(k, now) ? html`${w.expires} ${k.expires_at}` : html`${w.expired} ${k.expires_at}`;
    return html`${s.active}`;
  };
  const actions = (k: KeyView) => {
    if (!accepted(k, now) || !mayChangeKey(c.member.role, k.read_only, c.mode)) return html``;
    const label = k.name || k.prefix;
    return html`${
        k.rolled_to
          ? ''
          : html`<form method="post" action="/console/${c.mode}/api-keys/${k.id}/roll" class="inline">
              <input type="hidden" name="_csrf" value="${c.csrf}" />
              <label class="sr-only" for="grace-${k.id}">${w.grace}: ${label}</label>
              <select id="grace-${k.id}" name="grace_seconds">
                ${GRACE_CHOICES.map((g) => html`<option value="${g}" ${g === '86400' ? html` selected` : ''}>${w.grace_options[g]}</option>`)}
              </select>
              <button type="submit" aria-label="${w.roll}: ${label}">${w.roll}</button>
            </form>`
      }
      <form method="post" action="/console/${c.mode}/api-keys/${k.id}/revoke" class="inline">
        <input type="hidden" name="_csrf" value="${c.csrf}" /><button type="submit" class="danger" aria-label="${s.revoke}: ${label}">${s.revoke}</button>
      </form>`;
  };
  return page(
    c,
    s.api_keys,
    html`${n ? html`<p class="notice ${n.kind}" role="${n.kind === 'error' ? 'alert' : 'status'}">${n.text}</p>` : ''}
    ${
      secret
        ? html`<div class="once" role="status">
            <p>${s.key_created}</p>
            <p><code class="secret" id="new-key">${secret}</code></p>
            ${rolled ? html`<p id="rolled-until">${w.rolled} ${rolled.expires_at} (UTC).</p>` : ''}
          </div>`
        : ''
    }
    ${!full && !readOnly ? html`<p>${w.view_only}</p>` : ''}
    ${table(
      `${s.api_keys} (${c.mode === 'test' ? s.mode_test : s.mode_live})`,
      [w.name, s.prefix, s.access, s.created, w.last_used, s.status, hiddenHeading(s.action)],
      keys.map((k) => ({
        attrs: html`data-key="${k.id}"`,
        cells: [
          k.name,
          html`<code>${k.prefix}…</code>`,
          k.read_only ? s.read_only : s.full_access,
          k.created_at,
          { content: k.last_used_at ?? w.never, attrs: html`data-last-used` },
          status(k),
          actions(k),
        ],
      })),
    )}
    ${
      readOnly || full
        ? html`<section>
            <h2>${s.create_key}</h2>
            <form method="post" action="/console/${c.mode}/api-keys" class="stack">
              <input type="hidden" name="_csrf" value="${c.csrf}" />
              <label for="key-name">${w.name}</label><input id="key-name" name="name" maxlength="100" />
              <fieldset>
                <legend>${s.access}</legend>
                ${full ? html`<label><input type="radio" name="access" value="full" checked /> ${s.full_access}</label>` : ''}
                <label><input type="radio" name="access" value="read_only" ${full ? '' : html` checked`} /> ${s.read_only}</label>
              </fieldset>
              <button type="submit">${s.create_key}</button>
            </form>
          </section>`
        : ''
    }`,
  );
}
