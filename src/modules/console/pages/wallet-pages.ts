import type { ConsoleLanguage } from '../domain/strings';
import { html } from '../domain/html';
import { notice, Notice, num, table } from '../domain/table';
import { page, PageContext } from '../domain/pages';
import { may } from '../domain/roles';

const en = {
  wallets: 'Wallets',
  help: 'Receiving wallets are watch-only keys: deposit addresses are derived from them, and no private key ever enters the service.',
  id: 'ID',
  family: 'Chain family',
  network: 'Network',
  first_address: 'First address',
  issued: 'Addresses issued',
  gap: 'Unused gap',
  state: 'State',
  active: 'Active',
  replaced: 'Replaced',
  created: 'Created',
  none: 'No wallets yet.',
  register: 'Register a watch-only key',
  key: 'Extended public key (xpub, zpub, Ltub, …), output descriptor, or a Solana wallet address',
  network_help: 'Network (UTXO keys only)',
  no_network: 'None (EVM, Tron, Solana)',
  save: 'Register',
  registered: 'The wallet is registered. Check its first address against your wallet:',
};
export type WalletStrings = typeof en;
const de: WalletStrings = {
  wallets: 'Wallets',
  help: 'Empfangs-Wallets sind reine Beobachtungsschlüssel: Einzahlungsadressen werden daraus abgeleitet, kein privater Schlüssel gelangt in den Dienst.',
  id: 'ID',
  family: 'Chain-Familie',
  network: 'Netzwerk',
  first_address: 'Erste Adresse',
  issued: 'Ausgegebene Adressen',
  gap: 'Ungenutzte Lücke',
  state: 'Zustand',
  active: 'Aktiv',
  replaced: 'Ersetzt',
  created: 'Erstellt',
  none: 'Noch keine Wallets.',
  register: 'Beobachtungsschlüssel registrieren',
  key: 'Erweiterter öffentlicher Schlüssel (xpub, zpub, Ltub, …), Output-Descriptor oder eine Solana-Wallet-Adresse',
  network_help: 'Netzwerk (nur UTXO-Schlüssel)',
  no_network: 'Keines (EVM, Tron, Solana)',
  save: 'Registrieren',
  registered: 'Die Wallet ist registriert. Prüfen Sie die erste Adresse mit Ihrer Wallet:',
};
const STRINGS: Record<ConsoleLanguage, WalletStrings> = { en, de };
export function walletStringsOf(lang: ConsoleLanguage): WalletStrings {
  return STRINGS[lang];
}

export interface WalletRowView {
  id: string;
  chain_family: string;
  network: string | null;
  first_address: string;
  active: boolean;
  addresses_issued: number;
  unused_gap: number;
  created_at: string;
}

/** The mode's receiving wallets and (for who may) the form that registers a watch-only key. */
export function walletsPage(
  c: PageContext,
  t: WalletStrings,
  rows: WalletRowView[],
  choices: { families: readonly string[]; networks: readonly string[] },
  n: Notice,
  form: { family: string; network: string; key: string },
): string {
  const canWrite = may(c.member.role, 'catalog.write', c.mode);
  return page(
    c,
    t.wallets,
    html`${notice(n)}
      <p>${t.help}</p>
      ${table(
        t.wallets,
        [t.family, t.first_address, t.issued, t.gap, t.state, t.created],
        rows.map((w) => ({
          attrs: html`data-wallet="${w.id}"`,
          cells: [
            `${w.chain_family}${w.network ? ` (${w.network})` : ''}`,
            html`<code>${w.first_address}</code>`,
            num(w.addresses_issued),
            num(w.unused_gap),
            w.active ? t.active : t.replaced,
            w.created_at,
          ],
        })),
        t.none,
      )}
      ${
        canWrite
          ? html`<section aria-labelledby="register-h">
              <h2 id="register-h">${t.register}</h2>
              <form method="post" action="/console/${c.mode}/wallets" class="stack">
                <input type="hidden" name="_csrf" value="${c.csrf}" />
                <label for="w-family">${t.family}</label>
                <select id="w-family" name="chain_family">
                  ${choices.families.map((f) => html`<option${f === form.family ? html` selected` : ''}>${f}</option>`)}
                </select>
                <label for="w-network">${t.network_help}</label>
                <select id="w-network" name="network">
                  <option value="">${t.no_network}</option>
                  ${choices.networks.map((f) => html`<option${f === form.network ? html` selected` : ''}>${f}</option>`)}
                </select>
                <label for="w-key">${t.key}</label>
                <input id="w-key" name="xpub" required maxlength="400" autocomplete="off" spellcheck="false" value="${form.key}" />
                <button type="submit">${t.save}</button>
              </form>
            </section>`
          : ''
      }`,
  );
}
