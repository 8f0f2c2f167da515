import type { ModuleManifest } from '../../shared/modules/module-manifest';
import { InvoicesModule } from './invoices.module';
import { loadInvoicesConfig } from './invoices.config';
import { INVOICE_EVENT_TYPES } from './events/invoice.events';

/** Its id kinds; the declaration below adds them to the kernel's IdKind. */
const ID_KINDS = ['invoice', 'invoice_item', 'invoice_calc', 'pi'] as const;

declare module '../../shared/ids/ids' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface IdKinds extends Record<(typeof ID_KINDS)[number], true> {}
}

/** The invoices module, as the platform wires it in (see docs/DEVELOPING.md, "Adding a module"). */
export const manifest = {
  name: 'invoices',
  nestModule: InvoicesModule,
  uses: ['quotes', 'products', 'organizations'],
  owner: '@invoicing-team',
  docs: 'docs/invoices.md',
  loadConfig: loadInvoicesConfig,
  idKinds: ID_KINDS,
  events: [...INVOICE_EVENT_TYPES],
  settings: [
    {
      name: 'PAYMENT_TOLERANCE',
      section: 'Payments and invoices',
      default: '0',
      description: 'How far short of price_usd completed payments may fall and still complete an invoice (0 to below 1, e.g. 0.005).',
      readme: {
        default: '`0`',
        meaning:
          "How far short of its `price_usd` an invoice's completed payments may fall and still complete it: a decimal fraction from 0 to below 1 (e.g. `0.005`).",
      },
    },
    {
      name: 'INVOICE_EXPIRY_MINUTES',
      section: 'Payments and invoices',
      default: '15',
      description: "How long a new invoice's rates hold and a payment is expected, in minutes (5 to 43200).",
      readme: {
        default: '`15`',
        meaning: "How long a new invoice's rates hold and a payment is expected (5 to 43200); `expires_in_minutes` on create overrides it.",
      },
    },
    {
      name: 'INVOICE_MONITORING_MINUTES',
      section: 'Payments and invoices',
      default: '1440',
      description: 'After expiry, how long late payments are still accepted, in minutes; then an unpaid invoice is VOIDED.',
      readme: {
        default: '`1440`',
        meaning: 'After expiry, how long late payments are still accepted; then an unpaid invoice becomes VOIDED (substatus EXPIRED).',
      },
    },
    {
      name: 'INVOICE_SWEEP_SECONDS',
      section: 'Payments and invoices',
      default: '5',
      description: 'How often each instance writes due expiries and window closings, in seconds (0: never; reads stay correct).',
      readme: {
        default: '`5`',
        meaning: 'How often each instance writes due expiries and window closings (0: never; reads stay correct).',
      },
    },
  ],
} satisfies ModuleManifest;
