import type { ConsoleLanguage } from '../domain/strings';
import { html } from '../domain/html';
import { notice, Notice, table } from '../domain/table';
import { page, PageContext } from '../domain/pages';
import { may } from '../domain/roles';

const en = {
  products: 'Products',
  product: 'Product',
  name: 'Name',
  description: 'Description',
  id: 'ID',
  version: 'Version',
  active: 'Active',
  inactive: 'Replaced',
  schemas: 'Billing schemas',
  type: 'Type',
  currency: 'Currency',
  base_price: 'Base price',
  interval: 'Interval',
  terms: 'Payment, renewal, billing',
  tiers: 'Usage prices',
  metric: 'Metric',
  price_per_unit: 'Price per unit',
  starts: 'From',
  created: 'Created',
  no_entries: 'None.',
  new_version: 'Create a new version',
  new_version_help:
    'The product as the API takes it (JSON, the same body as PUT /products/{id}). Saving writes a new version with new ids; this version stays readable, replaced.',
  body: 'Product (JSON)',
  save_version: 'Save as a new version',
  version_created: 'A new version is created.',
  bad_json: 'The product is not valid JSON',
};
export type ProductStrings = typeof en;
const de: ProductStrings = {
  products: 'Produkte',
  product: 'Produkt',
  name: 'Name',
  description: 'Beschreibung',
  id: 'ID',
  version: 'Version',
  active: 'Aktiv',
  inactive: 'Ersetzt',
  schemas: 'Abrechnungsschemata',
  type: 'Art',
  currency: 'Währung',
  base_price: 'Grundpreis',
  interval: 'Intervall',
  terms: 'Zahlung, Verlängerung, Abrechnung',
  tiers: 'Nutzungspreise',
  metric: 'Messgröße',
  price_per_unit: 'Preis pro Einheit',
  starts: 'Ab',
  created: 'Erstellt',
  no_entries: 'Keine.',
  new_version: 'Neue Version anlegen',
  new_version_help:
    'Das Produkt so, wie die API es annimmt (JSON, derselbe Inhalt wie bei PUT /products/{id}). Speichern schreibt eine neue Version mit neuen IDs; diese Version bleibt lesbar, als ersetzt.',
  body: 'Produkt (JSON)',
  save_version: 'Als neue Version speichern',
  version_created: 'Eine neue Version ist angelegt.',
  bad_json: 'Das Produkt ist kein gültiges JSON',
};
const STRINGS: Record<ConsoleLanguage, ProductStrings> = { en, de };
export function productStringsOf(lang: ConsoleLanguage): ProductStrings {
  return STRINGS[lang];
}

export interface ProductPageView {
  id: string;
  is_active: number | boolean;
  name: string;
  description: string;
  created_at: string;
  schemas: Array<{
    id: string;
    name: string;
    type: string;
    currency: string;
    base_price: string;
    interval_type: string | null;
    interval_count: number | null;
    payment_type: string | null;
    renew_type: string | null;
    billing_type: string | null;
    configurations: Array<{ id: string; starts_at: string; price_per_unit: string; metric_id: string; metric?: { metric_key: string } }>;
  }>;
}

export function productsPage(c: PageContext, t: ProductStrings, rows: ProductPageView[]): string {
  const base = `/console/${c.mode}`;
  return page(
    c,
    t.products,
    table(
      t.products,
      [t.name, t.id, t.schemas, t.created],
      rows.map((p) => [html`<a href="${base}/products/${p.id}">${p.name}</a>`, p.id, p.schemas.map((s) => `${s.name} (${s.type})`).join(', '), p.created_at]),
      t.no_entries,
    ),
  );
}

/** A product version: its billing schemas and usage prices, and (for who may change the catalog) a new version from the API's body. */
export function productPage(c: PageContext, t: ProductStrings, p: ProductPageView, body: string, n: Notice): string {
  const active = p.is_active === true || p.is_active === 1;
  const canWrite = active && may(c.member.role, 'catalog.write', c.mode);
  return page(
    c,
    `${t.product}: ${p.name}`,
    html`${notice(n)}
      <dl class="figures">
        <div>
          <dt>${t.id}</dt>
          <dd>${p.id}</dd>
        </div>
        <div>
          <dt>${t.version}</dt>
          <dd id="product-state">${active ? t.active : t.inactive}</dd>
        </div>
        <div>
          <dt>${t.created}</dt>
          <dd>${p.created_at}</dd>
        </div>
      </dl>
      <p>${p.description}</p>
      ${p.schemas.map(
        (s) =>
          html`<section>
            <h2>${s.name}</h2>
            <dl class="figures">
              <div>
                <dt>${t.type}</dt>
                <dd>${s.type}</dd>
              </div>
              <div>
                <dt>${t.base_price}</dt>
                <dd>${s.base_price} ${s.currency}</dd>
              </div>
              ${
                s.interval_type
                  ? html`<div>
                        <dt>${t.interval}</dt>
                        <dd>${s.interval_count ?? ''} ${s.interval_type}</dd>
                      </div>
                      <div>
                        <dt>${t.terms}</dt>
                        <dd>${[s.payment_type, s.renew_type, s.billing_type].filter(Boolean).join(', ')}</dd>
                      </div>`
                  : ''
              }
            </dl>
            ${table(
              `${t.tiers}: ${s.name}`,
              [t.metric, t.price_per_unit, t.starts],
              s.configurations.map((x) => [x.metric?.metric_key ?? x.metric_id, x.price_per_unit, x.starts_at]),
              t.no_entries,
            )}
          </section>`,
      )}
      ${
        canWrite
          ? html`<section aria-labelledby="version-h">
              <h2 id="version-h">${t.new_version}</h2>
              <form method="post" action="/console/${c.mode}/products/${p.id}/versions" class="stack wide">
                <input type="hidden" name="_csrf" value="${c.csrf}" />
                <label for="product-body">${t.body}</label>
                <p id="product-body-help" class="muted">${t.new_version_help}</p>
                <textarea id="product-body" name="body" rows="16" spellcheck="false" aria-describedby="product-body-help">${body}</textarea>
                <button type="submit">${t.save_version}</button>
              </form>
            </section>`
          : ''
      }`,
  );
}
