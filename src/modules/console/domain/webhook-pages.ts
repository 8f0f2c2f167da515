import { html } from './html';
import { hiddenHeading, num, table } from './table';
import { Notice, page, PageContext } from './pages';
import { may } from './roles';
import type { ConsoleLanguage } from './strings';

const WORDS = {
  en: {
    webhooks: 'Webhooks',
    endpoint: 'Endpoint',
    enabled: 'Enabled',
    disabled: 'Disabled',
    events: 'Events',
    all_events: 'all events',
    failures: 'Failures in a row',
    deliveries: 'Deliveries and attempts',
    when: 'When',
    event: 'Event',
    attempt: 'Attempt',
    result: 'Result',
    succeeded: 'succeeded',
    failed: 'failed',
    response: 'Response',
    next_attempt: 'Next attempt',
    resend: 'Resend',
    no_endpoints: 'No webhook endpoints in this mode.',
    no_attempts: 'No deliveries yet.',
    queued: 'Queued a new delivery:',
  },
  de: {
    webhooks: 'Webhooks',
    endpoint: 'Endpunkt',
    enabled: 'Aktiv',
    disabled: 'Deaktiviert',
    events: 'Ereignisse',
    all_events: 'alle Ereignisse',
    failures: 'Fehlschläge in Folge',
    deliveries: 'Zustellungen und Versuche',
    when: 'Wann',
    event: 'Ereignis',
    attempt: 'Versuch',
    result: 'Ergebnis',
    succeeded: 'erfolgreich',
    failed: 'fehlgeschlagen',
    response: 'Antwort',
    next_attempt: 'Nächster Versuch',
    resend: 'Erneut senden',
    no_endpoints: 'Keine Webhook-Endpunkte in diesem Modus.',
    no_attempts: 'Noch keine Zustellungen.',
    queued: 'Neue Zustellung eingeplant:',
  },
} satisfies Record<ConsoleLanguage, Record<string, string>>;

export type WebhookWords = (typeof WORDS)['en'];

export function webhookWords(lang: ConsoleLanguage): WebhookWords {
  return WORDS[lang];
}

export interface EndpointSummary {
  id: string;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  consecutive_failures: number;
}

export interface AttemptSummary {
  id: string;
  delivery_id: string;
  event_id: string;
  event_type: string;
  attempt_number: number;
  succeeded: boolean;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

/** At most this much of a response body is shown (the API's attempts list has it whole). */
const BODY_SHOWN = 300;

/**
 * The webhooks page: each endpoint of the mode with its recent attempts (newest first), their
 * responses, and a Resend button per event for the roles that may (owner, admin; developer in test mode).
 */
export function webhooksPage(c: PageContext, endpoints: Array<{ endpoint: EndpointSummary; attempts: AttemptSummary[] }>, n: Notice): string {
  const w = webhookWords(c.lang);
  const resend = may(c.member.role, 'webhooks.manage', c.mode);
  return page(
    c,
    w.webhooks,
    html`${n ? html`<p class="notice ${n.kind}" role="${n.kind === 'error' ? 'alert' : 'status'}" id="webhook-notice">${n.text}</p>` : ''}
    ${endpoints.length === 0 ? html`<p>${w.no_endpoints}</p>` : ''}
    ${endpoints.map(
      ({ endpoint: e, attempts }) =>
        html`<section data-endpoint="${e.id}">
          <h2>${w.endpoint}: <code>${e.url}</code></h2>
          <p>
            ${e.enabled ? w.enabled : html`${w.disabled}${e.disabled_reason ? html` (${e.disabled_reason})` : ''}`} · ${w.events}:
            ${e.event_types.length ? e.event_types.join(', ') : w.all_events} · ${w.failures}: ${e.consecutive_failures}
            ${e.description ? html` · ${e.description}` : ''}
          </p>
          ${table(
            w.deliveries,
            [w.when, w.event, w.attempt, w.result, w.response, w.next_attempt, ...(resend ? [hiddenHeading(c.s.action)] : [])],
            attempts.map((a) => ({
              attrs: html`data-attempt="${a.id}" data-delivery="${a.delivery_id}"`,
              cells: [
                a.created_at,
                html`${a.event_type} <code>${a.event_id}</code>`,
                num(a.attempt_number),
                a.succeeded ? w.succeeded : w.failed,
                html`${a.response_status ?? ''} ${a.error ? html`<span class="muted">${a.error}</span>` : ''}
                ${a.response_body ? html`<code>${a.response_body.slice(0, BODY_SHOWN)}</code>` : ''}`,
                a.next_attempt_at ?? '',
                ...(resend
                  ? [
                      html`<form method="post" action="/console/${c.mode}/webhooks/${e.id}/resend" class="inline">
                        <input type="hidden" name="_csrf" value="${c.csrf}" /><input type="hidden" name="event_id" value="${a.event_id}" />
                        <button type="submit" aria-label="${w.resend}: ${a.event_type} ${a.event_id}">${w.resend}</button>
                      </form>`,
                    ]
                  : []),
              ],
            })),
            w.no_attempts,
          )}
        </section>`,
    )}`,
  );
}
