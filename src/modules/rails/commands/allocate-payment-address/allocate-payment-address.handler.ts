import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, QueryBus } from '@nestjs/cqrs';
import type { Scope } from '../../../../shared/auth/request-context';
import { TransactionRunner } from '../../../../shared/db/transaction-runner';
import { ConflictError, NotFoundError, ValidationFailedError } from '../../../../shared/errors/domain-error';
import { Money, renderAmount, sumAmounts } from '../../../../shared/money/money';
import { EventOutbox } from '../../../../shared/events/outbox';
import { Clock } from '../../../../shared/time/clock';
import { formatTimestamp } from '../../../../shared/time/time';
import { GetPayableInvoiceQuery, heldRatesSnapshot, rateLock, isFinalInvoiceStatus, ListInvoicePaymentsQuery } from '../../../invoices';
import { GetProviderTermsQuery } from '../../../providers';
import { LockedRatesQuery, PricingRatesQuery } from '../../../rates';
import { stillDue, toUnits } from '../../domain/amount-due';
import { networkOf } from '../../domain/chains-config';
import { walletView } from '../../dto/wallet.views';
import { DepositAddressesRepository, DepositAddressRow } from '../../persistence/deposit-addresses.repository';
import { WalletsRepository } from '../../persistence/wallets.repository';
import { RailRegistry } from '../../rail-registry';
import { RailsConfig } from '../../rails.config';
import { ChainNodes } from '../../watcher/chain-nodes';
import { AllocatePaymentAddressCommand, PaymentAddressView } from './allocate-payment-address.command';
import { WALLET_EVENTS } from '../../events/wallet.events';

/** The address gap wallets scan by default (BIP-44): past it a wallet app may not see payments to newer addresses. */
export const GAP_LIMIT = 20;
/** Indexes tried before giving up, each found already handed out. */
const MAX_ATTEMPTS = 100;

@CommandHandler(AllocatePaymentAddressCommand)
export class AllocatePaymentAddressHandler implements ICommandHandler<AllocatePaymentAddressCommand> {
  constructor(
    @Inject(TransactionRunner) private readonly tx: TransactionRunner,
    @Inject(QueryBus) private readonly queries: QueryBus,
    @Inject(WalletsRepository) private readonly wallets: WalletsRepository,
    @Inject(DepositAddressesRepository) private readonly addresses: DepositAddressesRepository,
    @Inject(RailRegistry) private readonly rails: RailRegistry,
    @Inject(RailsConfig) private readonly config: RailsConfig,
    @Inject(ChainNodes) private readonly nodes: ChainNodes,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(EventOutbox) private readonly outbox: EventOutbox,
  ) {}

  async execute({ access, invoiceId, providerId }: AllocatePaymentAddressCommand): Promise<PaymentAddressView> {
    const invoice = await this.queries.execute(new GetPayableInvoiceQuery(access, invoiceId));
    if (!invoice) throw new NotFoundError('invoice');
    const scope: Scope = { organizationId: invoice.organizationId as Scope['organizationId'], mode: invoice.mode };

    const provider = await this.queries.execute(new GetProviderTermsQuery(scope, providerId));
    if (!provider) throw new ValidationFailedError({ provider_id: `unknown provider "${providerId}"` }, undefined, 'unknown_provider');
    const catalog = provider.catalog;
    if (!provider.enabled) {
      throw new ValidationFailedError({ provider_id: `${catalog.id} is disabled for this organization` }, undefined, 'provider_disabled');
    }
    const route = this.rails.routeOf(catalog.id);
    if (!route) {
      throw new ValidationFailedError(
        { provider_id: `${catalog.id} is not paid on a chain this service has a rail for; deposit addresses exist for chain providers only` },
        undefined,
        'unsupported_provider',
      );
    }
    const network = networkOf(this.config.chains, scope.mode, route.network);
    const asset = route.asset === null ? null : network?.assets[route.asset];
    // The section must carry the provider itself: Tron's coin (TRX) only with `http_api_url`, without which
    // the watcher cannot tell a TRX transfer and would never record one sent to the address.
    if (!network || asset === undefined || !network.providers.includes(network.providerOf(route.asset))) {
      throw new ValidationFailedError(
        {
          provider_id: `the ${route.network} rail${route.asset ? ` (token ${route.asset})` : ''} is not configured for ${scope.mode} mode on this service (CHAINS_FILE)`,
        },
        undefined,
        'rail_not_configured',
      );
    }
    // A node on another chain than configured: an address handed out now would point the payer's
    // wallet at the wrong chain, and the network is not watched meanwhile.
    if (this.nodes.mismatchOf(scope.mode, route.network)) {
      throw new ValidationFailedError(
        { provider_id: `the ${route.network} rail is unavailable in ${scope.mode} mode on this service: its node is on another chain than configured` },
        undefined,
        'rail_unavailable',
      );
    }
    if (isFinalInvoiceStatus(invoice.status)) {
      throw new ValidationFailedError({ id: `the invoice is ${invoice.status}; it takes no new payments` }, undefined, 'invoice_final');
    }

    const now = await this.clock.nowFor(scope);
    // Addresses are watched until the invoice's monitoring window ends: past it (a partly paid invoice is never
    // voided by the clock) an address would be one nobody watches, and money sent to it never seen.
    if (invoice.monitoringUntil && now.getTime() >= invoice.monitoringUntil.getTime()) {
      throw new ValidationFailedError(
        {
          id: `the invoice's payment window closed at ${formatTimestamp(invoice.monitoringUntil)}; it takes no new payments (ask the merchant, who may mark it paid or void it)`,
        },
        undefined,
        'payment_window_closed',
      );
    }
    // The rate lock at the invoice's scope's now, as GET /providers/{invoice_id} applies it; once it has
    // lapsed the amount is fixed at today's rate, which must be fresh in live mode (else 503). Within it, a
    // currency whose locked rate was already stale when the lock was taken is refused too, until it ends.
    const held = heldRatesSnapshot(invoice, now);
    const [rates, payments] = await Promise.all([
      this.queries.execute(
        held && invoice.expiresAt
          ? new LockedRatesQuery(scope, held, [catalog.currency], rateLock(invoice, invoice.expiresAt))
          : new PricingRatesQuery(scope, [catalog.currency]),
      ),
      this.queries.execute(new ListInvoicePaymentsQuery(scope, invoice.id)),
    ]);
    const seenUsd = sumAmounts(payments.filter((p) => p.status === 'COMPLETED' || p.status === 'PENDING').map((p) => new Money(p.price_usd)));
    const amount = stillDue(invoice.priceUsd, seenUsd, rates.usd[catalog.currency], catalog.decimals);

    const walletNetwork = route.adapter.walletPerNetwork ? route.network : null;
    const keys = this.rails.keysOf(route.adapter.family, walletNetwork, scope.mode);
    const watchUntil = invoice.monitoringUntil;
    const deposit = await this.tx.run(async (m) => {
      const existing = await this.addresses.findForInvoice(m, scope, invoice.id, catalog.id);
      if (existing) {
        // Handed out again while the invoice's window is open, it is watched as long: a reorg's hold may have kept
        // the window open past the end its address was given (docs/timing.md, "Held after a reorg").
        if (watchUntil && existing.watch_until && existing.watch_until.getTime() < watchUntil.getTime()) {
          await this.addresses.watchAgain(m, scope, existing.network, invoice.id, watchUntil);
          return { ...existing, watch_until: watchUntil };
        }
        return existing;
      }
      const wallet = await this.wallets.active(m, scope, route.adapter.family, walletNetwork, true);
      if (!wallet) {
        throw new ValidationFailedError(
          {
            provider_id: `the organization has no receiving wallet for ${walletNetwork ?? `${route.adapter.family} chains`} in ${scope.mode} mode (POST /wallets)`,
          },
          undefined,
          'no_receiving_wallet',
        );
      }
      // A concurrent call for the same invoice and provider may have committed while this one waited for the wallet.
      const winner = await this.addresses.findForInvoice(m, scope, invoice.id, catalog.id);
      if (winner) return winner;
      // One counter per key, whoever registered it: the index is the key's next unused one. An address
      // already in a row (a counter behind its key's addresses, as an older database may have) is skipped.
      const fingerprint = wallet.key_fingerprint ?? keys.fingerprint(wallet.xpub);
      for (let attempt = 1; ; attempt++) {
        const next = await this.wallets.takeIndex(m, wallet, fingerprint, now);
        const index = next.index;
        // Past the gap wallets scan by default, the merchant's wallet app may not show payments to the
        // newest addresses: said once per crossing (an address receiving money clears it). A family paid
        // to one wallet with a reference per payment (Solana) has no gap.
        if (!keys.referenceOf && next.gap > GAP_LIMIT && !next.warned && (await this.wallets.markGapWarned(m, wallet.chain_family, fingerprint))) {
          await this.outbox.record(m, scope, WALLET_EVENTS['wallet.gap_warning'], {
            ...walletView({ ...wallet, next_index: index + 1, unused_gap: next.gap }),
            gap_limit: GAP_LIMIT,
          });
        }
        const row: DepositAddressRow = {
          wallet_id: wallet.id,
          derivation_index: index,
          organization_id: scope.organizationId,
          mode: scope.mode,
          invoice_id: invoice.id,
          provider_id: catalog.id,
          network: route.network,
          address: keys.deriveAddress(wallet.xpub, index),
          watch_until: watchUntil,
          created_at: now,
        };
        if (await this.addresses.insertIfFree(m, row)) return row;
        const taken = await this.addresses.findForInvoice(m, scope, invoice.id, catalog.id);
        if (taken) return taken;
        if (attempt >= MAX_ATTEMPTS) {
          throw new ConflictError('No free deposit address was found after skipping addresses already handed out; retry the request', 'address_conflict');
        }
      }
    });

    return {
      provider_id: catalog.id,
      network: catalog.network,
      currency: catalog.currency,
      address: keys.displayAddress(deposit.address),
      amount: renderAmount(amount),
      decimals: catalog.decimals,
      chain_id: /^\d+$/.test(network.chain) ? Number(network.chain) : null,
      contract_address: asset === null ? null : keys.displayAddress(asset),
      reference: keys.referenceOf?.(deposit.address) ?? null,
      uri: keys.paymentUri({
        address: deposit.address,
        chain: network.chain,
        units: toUnits(amount, catalog.decimals),
        asset,
        decimals: catalog.decimals,
        message: `Invoice ${invoice.id}`,
      }),
      expires_at: formatTimestamp(invoice.expiresAt),
    };
  }
}
