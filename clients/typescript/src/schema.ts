/**
 * Generated from openapi.json by `npm run openapi` (openapi-typescript). Do not edit by hand.
 */

export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: the process is up
         * @description Answers plain HTTP in every mode (production included), so a load balancer can probe each instance directly.
         */
        get: operations["HealthController_live"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: the database answers (503 when not)
         * @description Answers plain HTTP in every mode (production included): point the load balancer's health check here.
         */
        get: operations["HealthController_ready"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/debug_token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Echo what the presented API key resolves to */
        get: operations["AuthController_debugToken"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/organizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create an organization with a test key and a live key (shown once) */
        post: operations["AdminController_createOrganization"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/organizations/{id}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the keys of an organization (prefixes only) */
        get: operations["AdminController_listKeys"];
        put?: never;
        /** Issue another key for an organization */
        post: operations["AdminController_createKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/keys/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a key by its full value, or by its display prefix and organization
         * @description A display prefix needs `organization_id` (400 with `validator.organization_id` without it): prefixes are not unique across organizations. A prefix matching several active keys of the organization is refused (400, `validator.key`); give the full key.
         */
        post: operations["AdminController_revoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/products": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List products, newest first: active versions unless include_inactive=true; is_active is a boolean */
        get: operations["ProductsController_list"];
        put?: never;
        /** Create a product with billing schemas and usage tiers (version 1) */
        post: operations["ProductsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/products/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one product version (active or not) with its schemas and tiers; is_active is 1 or 0 */
        get: operations["ProductsController_get"];
        /**
         * Replace a product by writing a new version
         * @description Same body as creation; omitted optional fields are cleared. The new version gets new ids and keeps the version_group_ids (schemas and tiers by position); the replaced version stays readable, inactive. Replacing an inactive version is 400 (product_version_inactive). Answers the new product id.
         */
        put: operations["ProductsController_replace"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/pay/quote": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Price quote with currency conversion
         * @description Send `currency` and exactly one of `product`, `invoice_id` or `items`. Amounts are converted through the USD rates of the snapshot in force now (`exchange_rate_timestamp`), rounded half-up at 30 fractional digits; with `invoice_id`, through the snapshot the invoice holds while its rate lock holds (until its expires_at), as its payment addresses ask. `null` for a variant is 400 at its field. Nothing is stored. In live mode with live rate sources (RATE_SOURCES), a rate older than RATES_MAX_AGE_SECONDS, of a currency the quote uses or of a method the organization can be paid with live, answers 503 `rates_unavailable`, with a Retry-After header giving the seconds until the sources are asked again (RATES_REFRESH_SECONDS).
         */
        post: operations["QuotesController_quote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/files/upload": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upload a file
         * @description multipart/form-data with the part `file` (the bytes) and the optional text field `name`. The upload is streamed to storage and refused once it passes FILES_MAX_BYTES (default 10 MiB) with 413 `payload_too_large`. The `type` is detected from the content's magic bytes, never from the declared Content-Type or the name. A failed upload leaves nothing stored (one that failed after its file was recorded, only while storing an Idempotency-Key's answer, keeps both: the file is listed and its content served). The content URL is served like every other call: it needs an API key of the same organization and mode (read-only keys are fine); another organization's or the other mode's file is 404.
         */
        post: operations["FilesController_upload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List files
         * @description Newest first. `search` matches the name case-insensitively; filters combine with AND.
         */
        get: operations["FilesController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/files/{id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download a file's bytes
         * @description The raw bytes (not an envelope) with the detected Content-Type, Content-Length, a Content-Disposition carrying the name (RFC 5987 `filename*` plus a sanitised ASCII `filename`) and `X-Content-Type-Options: nosniff`. Images, audio, video, PDF and plain text are served inline, everything else as an attachment. Errors use the JSON envelope. The content URL is served like every other call: it needs an API key of the same organization and mode (read-only keys are fine); another organization's or the other mode's file is 404.
         */
        get: operations["FilesController_content"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/files/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a file
         * @description Removes the stored bytes, then the record; the content URL answers 404 afterwards.
         */
        delete: operations["FilesController_remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices/create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an invoice
         * @description Items (1 to 100) are PRODUCT or PAYMENT_INTENT items; prices are computed at current rates. The invoice starts PENDING; an invoice of 0 (free products, intents of 0) is COMPLETED as it is issued (invoice.created, invoice.updated, invoice.completed), since nothing could pay it. In live mode with live rate sources (RATE_SOURCES), a rate older than RATES_MAX_AGE_SECONDS, of a currency the items or the invoice use or of a method the organization can be paid with live (GET /providers/{invoice_id}), answers 503 `rates_unavailable` and nothing is stored; its Retry-After header gives the seconds until the sources are asked again (RATES_REFRESH_SECONDS).
         */
        post: operations["InvoicesController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices/list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * List invoices
         * @description Newest first (created_at, then id). Filters combine with AND, values inside one array with OR; bounds are inclusive. limit default 20 (at most 100), offset default 0; for deep pages pass starting_after (the last id of the previous page) instead of a growing offset.
         */
        post: operations["InvoicesController_list"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an invoice (GET form)
         * @description The same answer as `POST /invoices/{id}`, with `expand` and `currency` in the query string. Without an Authorization header (payer access) the invoice id is the capability: metadata is left out, customer_email is masked and only payer expansions are allowed.
         */
        get: operations["InvoicesController_readWithGet"];
        /**
         * Change an invoice status or currency
         * @description Send exactly one of status or currency. Status (key required): PENDING -> VOIDED; PENDING or PARTIALLY_PAID -> COMPLETED (substatus MARKED_PAID); other moves are 400 invalid_state_transition with validator.status naming the allowed targets. Currency: only while PENDING; recomputes the calculations at current rates. Without a key only a currency change is allowed (a status change is 401). A read-only key has at least a payer's rights: it may change the currency of its own organization's invoices, and a status change with it is 403 read_only_key. A change to the currency the invoice already has is a no-op for every caller (200 "Invoice currency is already X; nothing changed": no re-quote, no invoice.updated event, no webhook delivery). Without a key an invoice's currency may be changed at most 5 times an hour (counted from the first change); one more is 429 rate_limited with Retry-After. Each accepted change re-quotes and records one invoice.updated event. Calls with a key are not capped per invoice (the key's rate limit applies).
         */
        put: operations["InvoicesController_update"];
        /**
         * Read an invoice
         * @description Body may be {} or []. Without an Authorization header (payer access) the invoice id is the capability: metadata is left out, customer_email is masked and only payer expansions are allowed.
         */
        post: operations["InvoicesController_read"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices/{id}/short_state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the current state of an invoice
         * @description HTTP 200; the envelope's status field holds the invoice state string (e.g. "PENDING") instead of the HTTP code.
         */
        get: operations["InvoicesController_shortState"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/assets/providers/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A provider image (SVG)
         * @description Public and cacheable for a day. Unknown names are 404.
         */
        get: operations["ProviderAssetsController_image"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/providers/{invoice_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Providers available to pay an invoice
         * @description Live mode lists a provider only when it can take money now: the invoice's organization has it enabled, a rail carries it (its network is configured for live mode in CHAINS_FILE, with the token's contract for a token) and the organization has an active receiving wallet for the chain family (POST /wallets); card and other providers without a rail are not listed. Test mode lists every enabled provider, `has_rail` saying which ones have a deposit address; the others are paid with POST /invoices/{id}/test_payment. `price` is what to send through the provider: the invoice's price_usd in the provider's currency at current rates, rounded up to the provider's decimals. Without an Authorization header (payer access) the invoice id is the capability.
         */
        get: operations["ProvidersController_forInvoice"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * List payments
         * @description Newest first (created_at, then id). Filters combine with AND, values inside one array with OR; bounds are inclusive. limit default 20 (at most 100), offset default 0; for deep pages pass starting_after (the last id of the previous page) instead of a growing offset. The body may be {} or [].
         */
        post: operations["PaymentsController_list"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read a payment
         * @description The body may be {} or []; `expand: ["provider"]` adds the provider. Without an Authorization header (payer access) the payment id is the capability and idempotency_key is left out.
         */
        post: operations["PaymentsController_read"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/test_helpers/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Simulate a payer's payment (test keys only)
         * @description Records a payment as a provider would report it: PENDING (seen) or COMPLETED. The invoice moves at once (decisions §8): a crypto payment seen -> WAITING_FOR_CONFIRMATIONS, a fiat one -> PROCESSING, completed payments covering it -> COMPLETED (PAID_OVER when over), part of it -> PARTIALLY_PAID (PAID_PARTIAL); after the invoice expired, a covering payment completes it as PAID_LATE. A crypto payment counts only once its confirmations reach the provider's required_confirmations. Repeating an idempotency_key reports the same payment (created once). The Idempotency-Key header (the client's retry key) is separate from the idempotency_key field (the provider's reference): a retry with the same header replays the first response. Live keys get 403.
         */
        post: operations["TestHelpersController_simulate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/test_helpers/payments/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Simulate a provider's status report for a payment (test keys only)
         * @description PENDING -> COMPLETED | FAILED | CANCELLED; a final status never changes (400, validator.status). The same status again changes nothing. The invoice is recomputed in the same transaction. Live keys get 403.
         */
        post: operations["TestHelpersController_status"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/test_helpers/payments/{id}/confirmations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Simulate a provider's confirmations report for a crypto payment (test keys only)
         * @description Sets the payment's confirmations (never lower than before). A PENDING payment reaching its required_confirmations becomes COMPLETED and counts toward its invoice in the same transaction; below it the invoice stays WAITING_FOR_CONFIRMATIONS. Fiat payments and FAILED or CANCELLED ones: 400 (validator.confirmations). Live keys get 403.
         */
        post: operations["TestHelpersController_confirmations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices/{id}/test_payment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pay a test-mode invoice with a simulated payment (payer call)
         * @description What the hosted checkout offers, in test mode, for a provider without a rail (has_rail false in GET /providers/{invoice_id}): a COMPLETED payment recorded through the same command as POST /test_helpers/payments, so the invoice moves as it would for a real one. `kind` exact pays what is still due (the price less the payments completed or waiting for confirmations) in the provider's currency at the rates in force now, rounded up to its decimals; partial pays half of it, rounded down (at least one smallest unit); over pays a tenth more. Without an Authorization header (payer access) the invoice id is the capability, and the anonymous rate limit applies. A live-mode invoice answers 404, as an unknown one does. The same idempotency_key again for the same invoice answers the first payment (created false) and pays nothing. 400 codes: validation_failed (kind, provider_id, idempotency_key), unknown_provider, provider_disabled, invoice_final (COMPLETED or VOIDED), nothing_due (payments seen already cover it). Payments sent at once are judged in turn under the invoice's lock, as if sent one after the other: two exact ones pay the invoice once (the other is invoice_final), and one priced from a due amount another payment changed meanwhile is priced again from what is left; 409 concurrent_update if that keeps happening.
         */
        post: operations["TestPaymentController_pay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * List events
         * @description Every state change of the organization in this mode (invoices, payments, products, files, webhook endpoints), newest first. Each entry has the shape of a webhook delivery body. Filters combine with AND; several `type` values match any of them.
         */
        post: operations["EventsController_list"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/events/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Read one event */
        post: operations["EventsController_get"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints
         * @description Newest first; secrets are never listed.
         */
        get: operations["WebhooksController_list"];
        put?: never;
        /**
         * Register a webhook endpoint
         * @description Events of the key's organization and mode whose type is listed (or all, with `*`) are POSTed to `url`, signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The signing `secret` is returned only in this answer and on rotation. An organization has at most 16 endpoints per mode (deleted ones do not count): a 17th is 400 `too_many_endpoints` naming `url`.
         */
        post: operations["WebhooksController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a webhook endpoint */
        get: operations["WebhooksController_get"];
        /**
         * Change a webhook endpoint
         * @description Only the fields sent change. `enabled: true` re-enables an endpoint disabled after failures (its failure count starts again); `enabled: false` pauses it and cancels its pending deliveries.
         */
        put: operations["WebhooksController_update"];
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description Nothing more is sent to it; its pending deliveries are cancelled.
         */
        delete: operations["WebhooksController_remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/rotate_secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a new signing secret
         * @description Returns the new secret once. With `grace_period_seconds`, deliveries also carry a signature made with the old secret until the period ends. Send an `Idempotency-Key` so a retried request (a timeout) answers the first rotation again, sealed, instead of rotating twice and dropping the secret your receivers still use.
         */
        post: operations["WebhooksController_rotate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * List delivery attempts to an endpoint
         * @description Newest first, with the answer status, the start of the answer body or the failure reason.
         */
        post: operations["WebhooksController_attempts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send an event to the endpoint again
         * @description Queues a new delivery of the event (same `webhook-id`, so receivers can recognise it), with its own retries. Only an event of a type the endpoint receives (its `event_types`) is sent: another is 400 `event_type_not_enabled`; a disabled endpoint is 400 `webhook_endpoint_disabled`.
         */
        post: operations["WebhooksController_redeliver"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/analytics/dashboard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Dashboard metrics for a period
         * @description Figures of the caller's organization and mode for one period (decisions §12; definitions in docs/analytics.md). Windows (UTC): last_day = the current hour and the 23 before it; last_N_days = the current day and the N-1 before it; prev_X = the window of the same length just before X. from is inclusive, to exclusive. A payment belongs to the window holding its happened_at (when the provider saw it; its USD value is taken then); an invoice to the window holding its created_at. Volumes are sums of price_usd of COMPLETED payments. invoices.paid_count = invoices of the window that are COMPLETED now; paid_volume_usd = their price_usd sum; average_price_usd = mean price_usd of the invoices of the window; conversion_rate = paid_count / count (0 when none). customers: distinct lower-cased customer_email of the invoices of the window; new = first invoice ever in the window; returning = unique - new; top = up to 5 customers by the price_usd sum of their COMPLETED invoices of the window. series: one point per day (per hour for last_day / prev_last_day), zero-filled. Money: 30 fractional digits; share and conversion_rate: decimals between 0 and 1. Served from rollups kept by database triggers in the same transaction as each payment or invoice change (raw payments and invoices are never scanned).
         */
        post: operations["AnalyticsController_dashboard"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/test_helpers/clock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the test clock of the caller's organization (test keys only; with CLOCK_CONTROL on, else 403 clock_control_disabled) */
        get: operations["TestClockController_read"];
        put?: never;
        /**
         * Move the test clock of the caller's organization forward (test keys only; with CLOCK_CONTROL on, else 403 clock_control_disabled)
         * @description Moves the time of the caller's organization in test mode forward by advance_seconds; it never goes back, and runs at most 100 years ahead of real time in all (400 at advance_seconds past that). Invoice timing (created_at, expires_at, expiry, the monitoring window, the sweeper), payments against those invoices and the dashboard follow it. Live mode, other organizations, event timestamps and webhook signatures (webhook-timestamp) always use real time. The offset is stored in the database: every instance sees it, and it survives restarts.
         */
        post: operations["TestClockController_advance"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List receiving wallets
         * @description Active and replaced wallets of the key's organization and mode, newest first; keys are never returned.
         */
        get: operations["WalletsController_list"];
        put?: never;
        /**
         * Register a receiving wallet (watch-only)
         * @description The account-level extended public key of the merchant's wallet (m/44'/60'/0'). It becomes the active wallet of the organization, mode and chain family: new deposit addresses come from it (m/44'/60'/0'/0/i); addresses already handed out from a previous wallet stay watched until their invoice's monitoring window closes. Format and checksum are checked; a private key (xprv, hex) or a recovery phrase is refused with 400 validator.xpub and is never stored or logged. No private key ever enters the service. A key belongs to the organization that registered it first: another organization registering it (either mode, or the same key exported with another parent fingerprint or child number: a key is recognised by its public key and chain code) gets 400 invalid_xpub on xpub, naming no organization. Within the organization the key has one address counter (both modes, every re-registration), so no address serves two invoices; a key used before continues after its highest index. Check first_address against your wallet. Solana wallets have no extended key: send the wallet address as `address` (an ed25519 key on the curve, base58); it receives every payment, told apart by a reference per payment address (addresses_issued counts them).
         */
        post: operations["WalletsController_register"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/wallets/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a receiving wallet */
        get: operations["WalletsController_get"];
        put?: never;
        post?: never;
        /**
         * Delete a receiving wallet
         * @description No new address comes from it (payment_address answers no_receiving_wallet until another is registered). Addresses already handed out stay watched until their invoice's monitoring window closes.
         */
        delete: operations["WalletsController_remove"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices/{id}/payment_address": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Get the deposit address of an invoice for a provider
         * @description The address (from the organization's active receiving wallet: the next unused index of its key, counted across every organization and mode that registered the key, never given to another invoice) where the payer sends `amount` through `provider_id`, with a `uri` for wallet apps (EIP-681 on EVM chains, BIP21 on UTXO chains). The same invoice and provider always get the same address. `amount` is what is still due at the invoice's locked rates (payments completed or waiting for confirmations deducted), rounded up to the provider's decimals, as GET /providers/{invoice_id} computes the price. Without an Authorization header (payer access) the invoice id is the capability. 400 codes: no_receiving_wallet, rail_not_configured (CHAINS_FILE has no such network or token for the mode), rail_unavailable (the network's node answers another chain than CHAINS_FILE names), provider_disabled, unsupported_provider (not paid on a chain this service has a rail for), unknown_provider, invoice_final (COMPLETED or VOIDED). Once the invoice's rate lock has lapsed (expires_at), `amount` is at today's rate: in live mode with live rate sources (RATE_SOURCES), a rate of the currency older than RATES_MAX_AGE_SECONDS answers 503 `rates_unavailable` (Retry-After: the seconds until the sources are asked again). Within the lock, a currency whose locked rate was already older than that when the invoice was priced (a way to pay enabled afterwards) answers 503 `rates_unavailable` too, with Retry-After at the lock's end: its payments would be valued at that rate, so it is priced at today's rate only once the lock ends.
         */
        post: operations["PaymentAddressController_allocate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rails/unmatched": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List transfers no payment records
         * @description Money that arrived at one of your deposit addresses but was not recorded as a payment, because the payment was refused when the watcher saw it (reason_code: provider_disabled when the provider was disabled after the address was handed out, invoice_not_found, ...). Nothing is lost: fix the cause (enable the provider again) and retry it. Money that reached your Solana wallet in a transaction without a reference of a payment address this service handed out (typed by hand, sent from an exchange) is kept here too, with invoice_id null and reason_code no_known_reference: no invoice is known, so it cannot be retried (match it yourself). Newest first; `status` filters; for deep pages pass starting_after (the last id of the previous page) instead of a growing offset.
         */
        get: operations["UnmatchedTransfersController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rails/unmatched/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a transfer no payment records */
        get: operations["UnmatchedTransfersController_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/rails/unmatched/{id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record a transfer as a payment again
         * @description Sends the transfer to the payments module again, as the watcher did, with the same idempotency key (<network>:<tx_hash>:<log_index|native>), so the payment is recorded once however often this is called. On success the transfer is RESOLVED with payment_id (a RESOLVED one is answered as it is); its confirmations are counted from then on. Refused again: 400 transfer_not_recorded (validator.id says why; the transfer keeps the new reason). 400 transfer_in_doubt while a chain reorganization has taken its block away. 400 transfer_without_invoice for a transfer kept without an invoice (invoice_id null, reason_code no_known_reference): no invoice is known to record a payment for, so it stays OPEN; match it yourself (mark the invoice it was meant for paid, or send the money back).
         */
        post: operations["UnmatchedTransfersController_retry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/invoices/{id}/refunds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund an invoice, fully or in part
         * @description Refundable: the USD value of the invoice's COMPLETED payments less its refunds that are not CANCELED or EXPIRED. Without `amount`, everything refundable, in the invoice's currency. The refund is valued at `rate` (`invoice`, the default: the rates the invoice was priced and paid at; `current`: today's, and the payout's coin amount at the rates of the moment the payer claims). 400 `refund_exceeds_paid` (validator.amount) when it is worth more than is refundable, 400 `nothing_to_refund` when nothing is. The answer's claim_url is for the payer: there they choose how to receive it and give an address (until expires_at, default 7 days); the coin amount is fixed then. The invoice's own status does not change.
         */
        post: operations["RefundsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refunds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List refunds
         * @description Newest first; `invoice_id` and `status` filter (AND). limit default 20 (at most 100), offset default 0; for deep pages pass starting_after.
         */
        get: operations["RefundsController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refunds/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a refund */
        get: operations["RefundsController_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refunds/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a refund not yet sent
         * @description From AWAITING_DESTINATION or AWAITING_PAYOUT; its amount is refundable again. Once SENT only the chain decides: 400 (validator.status). Canceling a CANCELED refund answers it as it is.
         */
        post: operations["RefundsController_cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refunds/{id}/sent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Report the transaction that pays a refund
         * @description Send `payout.amount` of `payout.currency` to `payout.address` from your wallet (or open `payout.uri` in it), then report the transaction here: the refund is SENT and its confirmations are counted to the provider's required confirmations, then COMPLETED (refund.completed). What the report must prove: the transaction is mined in a block after the chain tip recorded when the payer gave the destination (or is seen unmined after it), else 400 `payout_mismatch`; the node knows it (a hash it does not know, mined or waiting, is 400 `tx_not_found` and nothing is kept); it pays the destination at least the payout in the payout's asset through transfers that each pay that one address (a token's Transfer log, the transaction's own coin value, a UTXO output paying exactly that address, on Solana all that the transaction gave that wallet in the asset, as one transfer; transfers made inside contracts do not count), else 400 `payout_mismatch` (validator.tx_hash); and each of those transfers pays no other refund (a refund takes them once they are shown to pay it): one transaction may pay several refunds, but what it gave one Solana wallet in one asset pays only one. A transaction waiting unmined is taken and checked once mined: if it then does not pay the refund, or it leaves the node unmined for REFUND_TX_GRACE_SECONDS, the refund goes back to AWAITING_PAYOUT (refund.updated) and may be canceled. Reporting the same hash again answers the refund as it is.
         */
        post: operations["RefundsController_sent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/test_helpers/refunds/{id}/payout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Simulate a refund's payout (test keys only)
         * @description For a test-mode refund AWAITING_PAYOUT (the payer named a destination) or SENT. `paid`: the payout arrived in full and the refund is COMPLETED as a payout the chain confirms completes it: refund.updated (reported, with the stand-in transaction `simulated:<refund id>` in payout.tx_hash unless a real one was reported), then refund.completed, and the invoice's refunded_usd grows. `short`: the payout paid the destination less than `payout.amount`, and the refund goes back to AWAITING_PAYOUT as a short payout does (refund.updated, the `payout_mismatch` logged and named in the answer's message); it may be simulated or reported again, or canceled (the service cancels it itself, refund.canceled, when the invoice's payments no longer cover it: a chain reorg took one back while it was SENT). `paid` on a refund already COMPLETED answers it as it is; any other state is 400 invalid_state_transition (validator.status). Unknown ids and other organizations' refunds: 404. Live keys: 403 live_mode_forbidden. The refund claim page's test control makes the same move with the claim token instead of a key (POST /refund_claims/{token}/test_payout).
         */
        post: operations["RefundTestHelpersController_payout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refund_claims/assets/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A file of the refund claim page (script, stylesheet)
         * @description Public; unknown names are 404.
         */
        get: operations["RefundClaimsController_asset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refund_claims/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The refund claim page (HTML)
         * @description The page behind a refund's claim_url: who refunds (the merchant's name) and which invoice (its id and items), the amount, and while the refund is AWAITING_DESTINATION a form to choose how to receive it and give an address (checked for the network before anything is sent); afterwards the payout fixed then and the refund's progress (waiting for the merchant, sent, completed), kept current by polling GET /refund_claims/{token}/state as the checkout page polls a payment. In test mode it offers every provider enabled for the organization and, once a payout is fixed, a test control ("Simulate payout", "Simulate short payout") calling POST /refund_claims/{token}/test_payout. English and German (`lang`, else Accept-Language). Its script calls only those three routes and POST /refund_claims/{token}. Strict Content-Security-Policy (no inline script or style, nothing from another host). An unknown token is a 404 page; over the anonymous rate limit a 429 page.
         */
        get: operations["RefundClaimsController_page"];
        put?: never;
        /**
         * Claim a refund: say where it goes (no key)
         * @description The payer (or a merchant's own page on their behalf) names a payout method (`provider_id`, one of the page's methods: the providers the invoice was paid through that a configured rail carries, else every carried one; in test mode also every provider enabled for the organization that takes an address, whose payout the merchant then simulates) and an address. The address is checked for that network (EIP-55 checksum on EVM chains; bech32/bech32m, base58check or cashaddr on UTXO chains, mainnet in live mode, testnet/regtest in test mode; in test mode TRON base58check, XRP Ledger classic addresses and Solana keys): 400 validator.address. The coin amount is fixed then, at the refund's rates (`rate: current`: the rates of this moment), rounded down to the coin's decimals, and shown in `payout` with a payment URI for the merchant's wallet; the refund is AWAITING_PAYOUT. The chain's tip height is recorded then (on a network with a rail): the payout must be mined in a later block (503 `service_unavailable` when the network's node does not answer; try again). The same destination sent again (also while the first is being recorded) answers the claim as it is; another once it is given is 400 (validator.status). 400 `claim_expired` after expires_at. Unknown token: 404. Anonymous rate limit: 429, checked before the body is read; a body over PAYER_BODY_LIMIT_BYTES (8 KB): 413.
         */
        post: operations["RefundClaimsController_claim"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refund_claims/{token}/state": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A refund claim's state (JSON, no key)
         * @description What the claim page shows and polls: the status, the amount, the methods offered while AWAITING_DESTINATION, the payout once fixed, `test_mode`, the merchant's name and the invoice's id and items (what its checkout page shows a payer anyway). Unknown token: 404. Anonymous rate limit: 429.
         */
        get: operations["RefundClaimsController_state"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/refund_claims/{token}/test_payout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Simulate a test-mode refund's payout from its claim page (no key)
         * @description The claim page's test control (decisions §19, "Test mode"), as the checkout page's test payment is POST /invoices/{id}/test_payment: the claim token is the capability, and only a test-mode refund answers (a live one is 404, as an unknown token is), so it moves no real money and no live refund. The same move as POST /test_helpers/refunds/{id}/payout: `paid` completes a refund AWAITING_PAYOUT or SENT (refund.updated, refund.completed, the invoice's refunded_usd), `short` takes it back to AWAITING_PAYOUT with payout_mismatch (named in the message); `paid` again on a COMPLETED refund answers it as it is; other states: 400 invalid_state_transition. Anonymous rate limit: 429, checked before the body is read; a body over PAYER_BODY_LIMIT_BYTES (8 KB): 413.
         */
        post: operations["RefundClaimsController_testPayout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checkout/assets/{file}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A file of the checkout page (script, stylesheet, QR code library, icon)
         * @description Public. Linked with ?v=<content hash>, cacheable for a year; unknown names are 404.
         */
        get: operations["CheckoutController_asset"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/checkout/{invoice_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The hosted checkout page of an invoice (HTML)
         * @description The page to send a payer to (the invoice read's checkout_url), or to embed in a frame where CHECKOUT_FRAME_ANCESTORS allows it. No key: the invoice id is the capability, as for the payer calls, and the payer calls' anonymous rate limit applies (429 page). It shows the merchant, the items and the total, a currency selector, the providers grouped by network, and for the chosen one the exact amount, the address, a QR code of the payment URI and an "open in wallet" link; then the live state (waiting, "n of m confirmations", partially paid with the remaining amount, paid and a redirect to redirect_url, expired, paid late, cancelled). Its script calls only POST /invoices/{id}, PUT /invoices/{id} (currency), GET /providers/{invoice_id}, POST /invoices/{id}/payment_address and GET /invoices/{id}/short_state, so a merchant can build the same page on the same calls. An unknown id is a 404 page (the same page whatever the id); so is every id when PUBLIC_PAYER_ACCESS=false. Strict Content-Security-Policy: no inline script or style, nothing from another host but https images (the merchant's logo).
         */
        get: operations["CheckoutController_page"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/subscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List subscriptions, newest first (filters status and customer_email combine with AND) */
        get: operations["SubscriptionsController_list"];
        put?: never;
        /**
         * Start a subscription to a RECURRING billing schema
         * @description Periods follow the schema: interval_type x interval_count in UTC (a month from the 31st ends on the last day of a shorter month); ANNIVERSARY periods start at starts_at, CALENDAR ones at UTC calendar boundaries (midnight, Monday, the 1st, January 1st) with a partial first period, charged whole (billing_type FULL) or by its share of the seconds of the whole period (PRORATED). Each period gets one invoice in the schema's currency: ADVANCE at the period's start (base price x quantity, with the usage of the previous period), ARREARS at its end (base and the period's usage); usage of each metric is priced by the schema's tiers, graduated (each unit at the price of its tier). The invoice carries subscription_id, period_start and period_end. A quantity whose base amount (base_price times quantity) is past 48 integer digits, in the schema's currency or in USD at today's rates, is 400 naming quantity: no period invoice could hold it.
         */
        post: operations["SubscriptionsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/subscriptions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read one subscription */
        get: operations["SubscriptionsController_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/subscriptions/{id}/upcoming_invoice": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Preview the next period invoice
         * @description The invoice the scheduler will issue at invoice_at, worked out now: usage so far in the period it bills. Nothing is stored. An ADVANCE subscription canceled at period end previews its final invoice: the usage of its last period only, period_start = period_end = invoice_at (its end). 404 no_upcoming_invoice when none will be (canceled; or ending at the period end with no other invoice to come: for ADVANCE, while no usage of the last period is priced above 0).
         */
        get: operations["SubscriptionsController_upcoming"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/subscriptions/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a subscription now or at the end of its current period
         * @description at_period_end true: cancel_at_period_end becomes true and the subscription stays ACTIVE until the current period ends, then CANCELED (ADVANCE issues no invoice for the next period, and bills the usage of the period served in a final usage-only invoice at the end, when that usage is priced above 0; ARREARS still bills the period served). false (default): CANCELED now; nothing more is billed. Canceling a CANCELED subscription is 400 (validator.status).
         */
        post: operations["SubscriptionsController_cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/usage_events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record a usage event of a subscription's metric
         * @description 201 with the event; an id recorded before is 200 with the first record (never counted twice). Aggregated per period by the metric's aggregation_type: SUM of values, COUNT of events, MAX value, UNIQUE_COUNT of distinct unique_key (or values), LATEST value (by timestamp, then arrival). An event is counted in the period its timestamp falls in; usage of a period whose usage an invoice already billed is refused (400 naming timestamp). A subscription canceled at period end takes no event at or after its current_period_end (400), even before it shows CANCELED.
         */
        post: operations["UsageEventsController_record"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/usage_events/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Record up to 100 usage events at once
         * @description All or none: a wrong event is 400 naming events.<i>.<field>. Ids recorded before are left as first recorded (counted in duplicates). Aggregated per period by the metric's aggregation_type: SUM of values, COUNT of events, MAX value, UNIQUE_COUNT of distinct unique_key (or values), LATEST value (by timestamp, then arrival). An event is counted in the period its timestamp falls in; usage of a period whose usage an invoice already billed is refused (400 naming timestamp). A subscription canceled at period end takes no event at or after its current_period_end (400), even before it shows CANCELED.
         */
        post: operations["UsageEventsController_batch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/audit_log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's audit log, newest first
         * @description Who (a console member or an API key) did what, when and from where: console sign-ins, members and roles, API keys created or revoked, and the changes members and keys make that decide where money or data goes or undo something: invoices voided, marked paid or re-priced, refunds, subscriptions cancelled, products, wallets, webhook endpoints (a key's entries have actor_type key and the key's id; creating invoices and payments is not audited). A live key reads both modes (each entry names its mode, or null for organization-wide actions); a test key reads test-mode entries only. A read-only key gets 403.
         */
        get: operations["AuditLogController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/exports/invoices.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export invoices as CSV
         * @description CSV (RFC 4180, UTF-8, CRLF line ends) of the invoices of the key's mode, newest first, one line per object after a header line: id, organization_id, status, substatus, currency, price, price_usd, refunded_usd, customer_email, created_at, updated_at, expires_at, monitoring_until, redirect_url, checkout_url, subscription_id, period_start, period_end, metadata. Nested objects are flattened into dotted columns; metadata is one column of JSON; amounts are exact decimal strings as the API renders them; timestamps UTC. A cell that starts with =, +, -, @, a tab or a carriage return is prefixed with ' so spreadsheets read it as text (formula injection), and so is such a character after a ;, a tab or a line break inside a cell. The response is streamed as it is read (any size); a failure after the first line ends the transfer without its final chunk. Any key (read-only included). Unknown parameters are refused (400 naming the parameter); empty ones are ignored.
         */
        get: operations["ExportsController_invoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/exports/payments.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export payments as CSV
         * @description CSV (RFC 4180, UTF-8, CRLF line ends) of the payments of the key's mode, newest first, one line per object after a header line: id, organization_id, invoice_id, provider_id, status, currency, price, price_usd, tx_hash, confirmations, required_confirmations, idempotency_key, happened_at, created_at, updated_at. Nested objects are flattened into dotted columns; metadata is one column of JSON; amounts are exact decimal strings as the API renders them; timestamps UTC. A cell that starts with =, +, -, @, a tab or a carriage return is prefixed with ' so spreadsheets read it as text (formula injection), and so is such a character after a ;, a tab or a line break inside a cell. The response is streamed as it is read (any size); a failure after the first line ends the transfer without its final chunk. Any key (read-only included). Unknown parameters are refused (400 naming the parameter); empty ones are ignored.
         */
        get: operations["ExportsController_payments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/exports/refunds.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export refunds as CSV
         * @description CSV (RFC 4180, UTF-8, CRLF line ends) of the refunds of the key's mode, newest first, one line per object after a header line: id, invoice_id, status, amount, currency, amount_usd, rate, reason, claim_url, expires_at, destination.provider_id, destination.network, destination.address, payout.provider_id, payout.network, payout.currency, payout.address, payout.amount, payout.uri, payout.tx_hash, payout.confirmations, payout.required_confirmations, created_at, updated_at. Nested objects are flattened into dotted columns; metadata is one column of JSON; amounts are exact decimal strings as the API renders them; timestamps UTC. A cell that starts with =, +, -, @, a tab or a carriage return is prefixed with ' so spreadsheets read it as text (formula injection), and so is such a character after a ;, a tab or a line break inside a cell. The response is streamed as it is read (any size); a failure after the first line ends the transfer without its final chunk. Any key (read-only included). Unknown parameters are refused (400 naming the parameter); empty ones are ignored.
         */
        get: operations["ExportsController_refunds"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        SuccessEnvelopeDto: {
            /**
             * @description HTTP status (the invoice state on short_state)
             * @example 200
             */
            status: number | string;
            /** @example null */
            error: string | null;
            /** @example Success */
            message: string;
            /**
             * @description development for test-mode keys, production for live-mode keys
             * @enum {string}
             */
            env: "development" | "production";
            /**
             * @example {
             *       "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
             *     }
             */
            log: {
                request_id?: string;
            };
            /** @example null */
            validator: {
                [key: string]: string;
            } | null;
            /** @example null */
            support_id: string | null;
        };
        ErrorEnvelopeDto: {
            /** @example 400 */
            status: number;
            /** @example {} */
            data: Record<string, never>;
            /** @example Invalid request: items.0.price must not be negative */
            error: string;
            /** @example null */
            message: string | null;
            /** @enum {string} */
            env: "development" | "production";
            log: {
                request_id?: string;
            };
            /**
             * @example {
             *       "items.0.price": "must not be negative"
             *     }
             */
            validator: {
                [key: string]: string;
            } | null;
            /**
             * Format: uuid
             * @example 0b8e7f8c-2f7a-4d65-9a51-0c8c2a3f7d10
             */
            support_id: string;
            /**
             * @description Stable machine-readable code: validation_failed, malformed_json, unsupported_content_type, https_required, missing_api_key, malformed_api_key, invalid_api_key, read_only_key, live_mode_forbidden, clock_control_disabled, route_not_found, *_not_found, invalid_state_transition, concurrent_update, payload_too_large, rate_limited, idempotency_conflict, service_unavailable, rates_unavailable, internal_error
             * @example validation_failed
             */
            code?: string;
        };
        DebugTokenDto: {
            /** @example org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            organization_id: string;
            /** @example Acme */
            organization_name: string;
            /** @enum {string} */
            mode: "test" | "live";
            /** @example sk_test_Ab12Cd */
            key_prefix: string;
            read_only: boolean;
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
        };
        CreatedOrganizationDto: {
            organization_id: string;
            name: string;
            /** @example sk_test_... */
            test_key: string;
            /** @example sk_live_... */
            live_key: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        CreateOrganizationRequestDto: {
            /** @example Acme */
            name: string;
        };
        IssuedKeyDto: {
            /** @example key_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11 */
            id: string;
            /** @example org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            organization_id: string;
            /** @enum {string} */
            mode: "test" | "live";
            read_only: boolean;
            /** @example sk_test_Ab12Cd */
            prefix: string;
            /** @description The full key, shown only in this answer */
            key: string;
            /**
             * @description A label people gave the key (empty when none)
             * @example
             */
            name: string;
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        CreateApiKeyRequestDto: {
            /** @enum {string} */
            mode: "test" | "live";
            /** @default false */
            read_only?: boolean;
        };
        ApiKeyDto: {
            /** @example key_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11 */
            id: string;
            /**
             * @description The display prefix (the key itself is never shown again)
             * @example sk_test_Ab12Cd
             */
            prefix: string;
            /** @enum {string} */
            mode: "test" | "live";
            read_only: boolean;
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
            /** @example null */
            revoked_at: string | null;
            /**
             * @description A label people gave the key (empty when none)
             * @example Shop backend
             */
            name: string;
            /**
             * @description Set when the key was rolled: when it stops being accepted
             * @example null
             */
            expires_at: string | null;
            /**
             * @description Set when the key was rolled: the key that replaced it
             * @example null
             */
            rolled_to: string | null;
            /**
             * @description When a request last used it (at most a minute or two behind)
             * @example 2026-11-21 10:05:00
             */
            last_used_at: string | null;
        };
        RevokedKeyDto: {
            id: string;
            prefix: string;
            organization_id: string;
        };
        RevokedKeysDto: {
            revoked: components["schemas"]["RevokedKeyDto"][];
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        RevokeApiKeyRequestDto: {
            /**
             * @description The full key or its 14-character display prefix
             * @example sk_live_9hF2kL
             */
            key: string;
            /**
             * @description The organization the key belongs to. Required with a display prefix (prefixes are not unique across organizations); with a full key, optional, and the key must then belong to it.
             * @example org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f
             */
            organization_id?: string;
        };
        ProductIdDto: {
            /** @example product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b */
            id: string;
        };
        /**
         * @description Any letter case is read (usd is USD). Tickers are accepted for the crypto currencies: BTC (BITCOIN), XBT (BITCOIN), ETH (ETHEREUM), SOL (SOLANA), BNB (BINANCE_COIN), XRP (RIPPLE), POL (POLYGON), MATIC (POLYGON), TRX (TRON), LTC (LITECOIN), BCH (BITCOIN_CASH), DOGE (DOGECOIN).
         * @enum {string}
         */
        Currency: "BITCOIN" | "ETHEREUM" | "USDT" | "USDC" | "USDC_NATIVE" | "SOLANA" | "BINANCE_COIN" | "RIPPLE" | "POLYGON" | "TRON" | "LITECOIN" | "BITCOIN_CASH" | "DOGECOIN" | "USD" | "EUR" | "CHF" | "GBP" | "AUD" | "JPY" | "CNY" | "CAD" | "HKD" | "SGD" | "SEK" | "KRW" | "NOK" | "NZD" | "INR" | "MXN" | "TWD" | "ZAR" | "BRL" | "DKK" | "PLN" | "THB" | "ILS" | "IDR" | "CZK" | "AED" | "TRY" | "HUF" | "CLP" | "SAR" | "PHP" | "MYR" | "COP" | "RUB" | "RON" | "PEN";
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        MetricInputDto: {
            /**
             * @description Id of an existing metric of the organization and mode; when given, the other fields are not needed
             * @example metric_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f
             */
            id?: string | null;
            /**
             * @description Key the metric is found by; a metric with a new key is created on first use (an existing one keeps its name and must have the same aggregation_type). Required without id.
             * @example api_calls
             */
            metric_key?: string;
            /**
             * @description Display name of a new metric (defaults to metric_key)
             * @example API calls
             */
            name?: string | null;
            /**
             * @description How usage of a new metric is aggregated. Required without id.
             * @example SUM
             * @enum {string}
             */
            aggregation_type?: "SUM" | "COUNT" | "MAX" | "UNIQUE_COUNT" | "LATEST";
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        ConfigurationInputDto: {
            /**
             * @description Lower bound of the tier (a quantity, inclusive)
             * @example 0
             */
            starts_at: string | number;
            /**
             * @description Upper bound of the tier (exclusive); null or omitted for the open last tier
             * @example 1000
             */
            ends_at?: (string | null) | number;
            /**
             * @description Price of one unit within the tier
             * @example 0.01
             */
            price_per_unit: string | number;
            metric: components["schemas"]["MetricInputDto"];
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        SchemaInputDto: {
            /** @example Monthly */
            name: string;
            /** @example Billed monthly in arrears */
            description?: string | null;
            /**
             * @description Any letter case is read (usd is USD). Tickers are accepted for the crypto currencies: BTC (BITCOIN), XBT (BITCOIN), ETH (ETHEREUM), SOL (SOLANA), BNB (BINANCE_COIN), XRP (RIPPLE), POL (POLYGON), MATIC (POLYGON), TRX (TRON), LTC (LITECOIN), BCH (BITCOIN_CASH), DOGE (DOGECOIN).
             * @example USD
             */
            currency: components["schemas"]["Currency"];
            /**
             * @example RECURRING
             * @enum {string}
             */
            type: "ONE_TIME" | "RECURRING";
            /**
             * @description Base price per period (RECURRING) or once (ONE_TIME)
             * @example 100
             */
            base_price: string | number;
            /**
             * @description Required for RECURRING; stored as null for ONE_TIME
             * @example MONTH
             * @enum {string|null}
             */
            interval_type?: "DAY" | "WEEK" | "MONTH" | "YEAR" | null;
            /**
             * @description Required for RECURRING; stored as null for ONE_TIME
             * @example 1
             */
            interval_count?: number | null;
            /**
             * @description Required for RECURRING; stored as null for ONE_TIME
             * @example ARREARS
             * @enum {string|null}
             */
            payment_type?: "ADVANCE" | "ARREARS" | null;
            /**
             * @description Required for RECURRING; stored as null for ONE_TIME
             * @example CALENDAR
             * @enum {string|null}
             */
            renew_type?: "CALENDAR" | "ANNIVERSARY" | null;
            /**
             * @description Required for RECURRING; stored as null for ONE_TIME
             * @example FULL
             * @enum {string|null}
             */
            billing_type?: "FULL" | "PRORATED" | null;
            /** @description Usage tiers; tiers of one metric must not overlap */
            configurations?: components["schemas"]["ConfigurationInputDto"][];
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        ProductRequestDto: {
            /** @example Pro plan */
            name: string;
            /** @example Everything in Basic, plus API access */
            description?: string | null;
            /**
             * @description String keys to string values; at most 50 keys, keys up to 40 and values up to 500 characters
             * @example {
             *       "tier": "pro"
             *     }
             */
            metadata?: {
                [key: string]: string;
            };
            /**
             * @description Id of an image file this organization uploaded in the same mode (POST /files/upload); anything else is refused with 400 at image_id
             * @example null
             */
            image_id?: string | null;
            schemas: components["schemas"]["SchemaInputDto"][];
        };
        MetricResponseDto: {
            /** @example metric_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a60 */
            id: string;
            /** @example api_calls */
            metric_key: string;
            /** @example API calls */
            name: string;
            /**
             * @example SUM
             * @enum {string}
             */
            aggregation_type: "SUM" | "COUNT" | "MAX" | "UNIQUE_COUNT" | "LATEST";
        };
        ConfigurationResponseDto: {
            id: string;
            version_group_id: string;
            /** @description 1/0 in single reads, true/false in the list */
            is_active: (0 | 1) | boolean;
            schema_id: string;
            /** @description Lower bound of the tier (inclusive) */
            starts_at: string;
            /** @description Upper bound of the tier (exclusive); null for an open last tier */
            ends_at: string | null;
            price_per_unit: string;
            metric_id: string;
            metric?: components["schemas"]["MetricResponseDto"];
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
            /** @example 2026-11-21 10:00:00 */
            updated_at: string | null;
        };
        BillingSchemaResponseDto: {
            id: string;
            version_group_id: string;
            organization_id: string;
            product_id: string;
            /** @description 1/0 in single reads, true/false in the list */
            is_active: (0 | 1) | boolean;
            name: string;
            description: string;
            /** @enum {string} */
            type: "ONE_TIME" | "RECURRING";
            currency: components["schemas"]["Currency"];
            base_price: string;
            /** @enum {string|null} */
            interval_type: "DAY" | "WEEK" | "MONTH" | "YEAR" | null;
            interval_count: number | null;
            /** @enum {string|null} */
            payment_type: "ADVANCE" | "ARREARS" | null;
            /** @enum {string|null} */
            renew_type: "CALENDAR" | "ANNIVERSARY" | null;
            /** @enum {string|null} */
            billing_type: "FULL" | "PRORATED" | null;
            configurations: components["schemas"]["ConfigurationResponseDto"][];
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
            /** @example 2026-11-21 10:00:00 */
            updated_at: string | null;
        };
        ProductResponseDto: {
            id: string;
            /** @description Shared by every version of the product */
            version_group_id: string;
            /** @description 1/0 in single reads, true/false in the list */
            is_active: (0 | 1) | boolean;
            name: string;
            organization_id: string;
            description: string;
            image_id: string | null;
            /** @description The image file named by image_id while it exists (null without image_id or once the file is deleted). url serves the bytes with an API key of the same organization and mode; a payer-facing read (no key) always has null. */
            image: {
                id?: string;
                name?: string;
                mime_type?: string;
                url?: string;
            } | null;
            metadata: {
                [key: string]: string;
            };
            schemas: components["schemas"]["BillingSchemaResponseDto"][];
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
            /** @example 2026-11-21 10:00:00 */
            updated_at: string | null;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        QuoteProductDto: {
            /** @example product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            id: string;
            /** @example 1 */
            quantity: number;
            /** @example schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10 */
            billing_schema_id: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        ItemInputDto: {
            /**
             * @example PAYMENT_INTENT
             * @enum {string}
             */
            type: "PRODUCT" | "PAYMENT_INTENT";
            /**
             * @description PRODUCT: the product id
             * @example product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f
             */
            product_id?: string;
            /**
             * @description PRODUCT: the billing schema id
             * @example schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10
             */
            billing_schema_id?: string;
            /**
             * @description PRODUCT: how many units (1 to 1,000,000)
             * @example 1
             */
            quantity?: number;
            /**
             * @description PAYMENT_INTENT: the currency of the price. Any letter case is read (usd is USD). Tickers are accepted for the crypto currencies: BTC (BITCOIN), XBT (BITCOIN), ETH (ETHEREUM), SOL (SOLANA), BNB (BINANCE_COIN), XRP (RIPPLE), POL (POLYGON), MATIC (POLYGON), TRX (TRON), LTC (LITECOIN), BCH (BITCOIN_CASH), DOGE (DOGECOIN).
             * @example USD
             */
            currency?: components["schemas"]["Currency"];
            /**
             * @description PAYMENT_INTENT: the amount, a decimal string
             * @example 49.99
             */
            price?: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        QuoteRequestDto: {
            /**
             * @description The quote currency. Any letter case is read (usd is USD). Tickers are accepted for the crypto currencies: BTC (BITCOIN), XBT (BITCOIN), ETH (ETHEREUM), SOL (SOLANA), BNB (BINANCE_COIN), XRP (RIPPLE), POL (POLYGON), MATIC (POLYGON), TRX (TRON), LTC (LITECOIN), BCH (BITCOIN_CASH), DOGE (DOGECOIN).
             * @example ETHEREUM
             */
            currency: components["schemas"]["Currency"];
            /** @description Quote one catalog product */
            product?: components["schemas"]["QuoteProductDto"];
            /**
             * @description Quote an existing invoice of the caller in `currency`
             * @example invoice_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f
             */
            invoice_id?: string;
            /** @description Quote custom items (the shapes of invoice creation), 1 to 100 */
            items?: components["schemas"]["ItemInputDto"][];
        };
        UploadedFileDto: {
            /** @example file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f */
            id: string;
            /**
             * @description Serves the bytes (GET, with an API key of the same organization and mode)
             * @example https://api.example.com/files/file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f/content
             */
            url: string;
        };
        FileDto: {
            /** @example file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f */
            id: string;
            /** @example logo.png */
            name: string;
            /** @example https://api.example.com/files/file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f/content */
            url: string;
            /**
             * @description Derived from the content's magic bytes
             * @example image
             * @enum {string}
             */
            type: "image" | "video" | "audio" | "document" | "archive" | "general";
            /**
             * @description Detected from the content; text/plain or application/octet-stream when unrecognised
             * @example image/png
             */
            mime_type: string;
            /**
             * @description Size in bytes
             * @example 48213
             */
            size: number;
            /**
             * @description SHA-256 of the content, hex
             * @example 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
             */
            sha256: string;
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
        };
        FileListDto: {
            items: components["schemas"]["FileDto"][];
            /** @example 1 */
            total: number;
            /** @example 20 */
            limit: number;
            /** @example 0 */
            offset: number;
            /** @example false */
            has_more: boolean;
        };
        DeletedFileDto: {
            /** @example file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f */
            id: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        ProductItemDoc: {
            /** @enum {string} */
            type: "PRODUCT";
            /** @example product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            product_id: string;
            /** @example schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10 */
            billing_schema_id: string;
            /** @example 2 */
            quantity: number;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        PaymentIntentItemDoc: {
            /** @enum {string} */
            type: "PAYMENT_INTENT";
            /** @example USDT */
            currency: components["schemas"]["Currency"];
            /**
             * @description Exact decimal, at most 30 fractional digits
             * @example 25.50
             */
            price: string | number;
        };
        InvoiceIdDto: {
            /** @example invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00 */
            id: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        CreateInvoiceRequestDto: {
            /** @description At least 1 and at most 100 items */
            items: (components["schemas"]["ProductItemDoc"] | components["schemas"]["PaymentIntentItemDoc"])[];
            /** @example jane@example.com */
            customer_email?: string;
            /**
             * @description Calculation currency; optional when all items share one currency. Any letter case is read (usd is USD). Tickers are accepted for the crypto currencies: BTC (BITCOIN), XBT (BITCOIN), ETH (ETHEREUM), SOL (SOLANA), BNB (BINANCE_COIN), XRP (RIPPLE), POL (POLYGON), MATIC (POLYGON), TRX (TRON), LTC (LITECOIN), BCH (BITCOIN_CASH), DOGE (DOGECOIN).
             * @example USD
             */
            currency?: components["schemas"]["Currency"];
            /**
             * @description String keys to string values; at most 50 keys, keys up to 40 and values up to 500 characters
             * @example {
             *       "order_id": "1234"
             *     }
             */
            metadata?: {
                [key: string]: string;
            };
            /**
             * @description How long the quoted rates hold and a payment is expected, in minutes (default INVOICE_EXPIRY_MINUTES, 15)
             * @example 30
             */
            expires_in_minutes?: number;
            /**
             * @description http(s) URL the payer is sent to after payment
             * @example https://shop.example.com/thanks
             */
            redirect_url?: string;
        };
        InvoiceItemDto: {
            /** @example invoice_item_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01 */
            id: string;
            organization_id: string;
            invoice_id: string;
            /** @enum {string} */
            type: "PRODUCT" | "PAYMENT_INTENT";
            currency: components["schemas"]["Currency"];
            product_id: string | null;
            billing_schema_id: string | null;
            /** @example pi_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e02 */
            payment_intent_id: string | null;
            /** @description The given price of a PAYMENT_INTENT item; null for PRODUCT items */
            price: string | null;
            quantity: number;
            /** @example INCLUDED */
            status: string;
            exclude_reason: string | null;
            /**
             * @description What the line charges, in words; present only where the service wrote one: a subscription's period invoice names the plan (product and billing schema), the quantity or the metric and its usage, and the period (UTC)
             * @example Acme API, Pro monthly × 3, 2026-11-01 00:00:00 to 2026-12-01 00:00:00 UTC
             */
            description?: string;
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            created_at: string;
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            updated_at: string | null;
            /** @description Product (when items.product is expanded). With a key: the full catalog product. Without a key (payer view) an allow-list only: id, name, description, image and, in schemas, the billing schemas this invoice was priced with reduced to id, name, description, type, currency, base_price, interval_type, interval_count; never metadata, other schemas or configurations. */
            product?: {
                [key: string]: unknown;
            } | null;
            /** @description Billing schema (when items.billing_schema is expanded) */
            billing_schema?: {
                [key: string]: unknown;
            } | null;
            /** @description When items.payment_intent is expanded; null for PRODUCT items */
            payment_intent?: {
                id?: string;
                currency?: string;
                price?: string;
            } | null;
        };
        InvoiceCalculationDto: {
            /** @example invoice_calc_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e03 */
            id: string;
            organization_id: string;
            invoice_id: string;
            /** @description Null for TOTAL and TOTAL_USD */
            invoice_item_id: string | null;
            title: string;
            /** @enum {string} */
            calculation_type: "PRODUCT" | "PAYMENT_INTENT" | "CURRENCY_CHANGE" | "TOTAL" | "TOTAL_USD";
            idx: number;
            currency: components["schemas"]["Currency"];
            initial_price: string;
            price_delta: string;
            price: string;
            details: {
                [key: string]: unknown;
            } | unknown[];
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            created_at: string;
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            updated_at: string | null;
        };
        InvoiceDto: {
            /** @example invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00 */
            id: string;
            organization_id: string;
            /** @enum {string} */
            status: "PENDING" | "COMPLETED" | "VOIDED" | "PROCESSING" | "WAITING_FOR_CONFIRMATIONS" | "PARTIALLY_PAID";
            /**
             * @description PAID_OVER: paid beyond the price (also set on a COMPLETED invoice paid again); PAID_PARTIAL; MARKED_PAID: completed by the merchant; EXPIRED; PAID_LATE: a counted payment came after expires_at; PAYMENT_REVERSED: a reorg took back a payment of a COMPLETED invoice
             * @enum {string|null}
             */
            substatus: "PAID_OVER" | "PAID_PARTIAL" | "MARKED_PAID" | "EXPIRED" | "PAID_LATE" | "PAYMENT_REVERSED" | null;
            currency: components["schemas"]["Currency"];
            price: string;
            price_usd: string;
            /**
             * @description USD value of the invoice's COMPLETED refunds (POST /invoices/{id}/refunds); the invoice's status does not change with them
             * @example 0.000000000000000000000000000000
             */
            refunded_usd: string;
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            created_at: string;
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            updated_at: string;
            /**
             * @description Until when the quoted rates hold and a payment is expected; after it an unpaid invoice has substatus EXPIRED (null: never expires)
             * @example 2026-11-21 10:15:00
             */
            expires_at: string | null;
            /**
             * @description Until when late payments are still accepted; then an unpaid invoice becomes VOIDED (substatus EXPIRED). Normally expires_at plus the monitoring window; later when a chain reorg took a payment off and the invoice fell back to PENDING (held for another window, so the transaction mined again can still pay it)
             * @example 2026-11-22 10:15:00
             */
            monitoring_until: string | null;
            /** @description Where the hosted checkout page sends the payer a few seconds after the invoice is paid */
            redirect_url: string | null;
            /**
             * @description The hosted checkout page (GET /checkout/{invoice_id}) to send or embed for the payer: absolute under PUBLIC_BASE_URL when the service sets it, else the path /checkout/{invoice_id} relative to the service's address
             * @example https://pay.example.com/checkout/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00
             */
            checkout_url: string;
            /** @description Masked (j***@example.com) in the payer view */
            customer_email: string | null;
            /**
             * @description Only on a subscription's period invoice (POST /subscriptions): the subscription it bills. Not in the payer view (read without a key), which shows the period only
             * @example subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01
             */
            subscription_id?: string;
            /**
             * @description Only on a subscription's period invoice: the start of the period it bills (UTC)
             * @example 2026-11-01 00:00:00
             */
            period_start?: string;
            /**
             * @description Only on a subscription's period invoice: the end of the period it bills (UTC, exclusive)
             * @example 2026-12-01 00:00:00
             */
            period_end?: string;
            /** @description Absent in the payer view */
            metadata?: {
                [key: string]: string;
            };
            items?: components["schemas"]["InvoiceItemDto"][];
            /** @description Per item by idx, then TOTAL and TOTAL_USD */
            calculations?: components["schemas"]["InvoiceCalculationDto"][];
            organization?: {
                name?: string;
                image_url?: string | null;
            };
            /** @description Payments of the invoice (each with provider when payments.provider is expanded) */
            payments?: {
                [key: string]: unknown;
            }[];
            /** @description When currency is expanded */
            currency_details?: {
                code?: string;
                /** @enum {unknown} */
                kind?: "CRYPTO" | "FIAT";
            };
            /** @description When the request names a currency: the invoice total in it, at the invoice's own rates while its rate lock holds, else at current rates (the invoice itself is unchanged) */
            summary?: {
                currency?: string;
                price?: string;
                price_usd?: string;
                exchange_rate_timestamp?: string;
            };
        };
        InvoiceListDto: {
            items: components["schemas"]["InvoiceDto"][];
            total: number;
            limit: number;
            offset: number;
            has_more: boolean;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        ListInvoicesRequestDto: {
            /**
             * @example [
             *       "PENDING",
             *       "COMPLETED"
             *     ]
             */
            status?: ("PENDING" | "COMPLETED" | "VOIDED" | "PROCESSING" | "WAITING_FOR_CONFIRMATIONS" | "PARTIALLY_PAID")[];
            /**
             * @description Any letter case is read (usd is USD). Tickers are accepted: BTC (BITCOIN), XBT (BITCOIN), ETH (ETHEREUM), SOL (SOLANA), BNB (BINANCE_COIN), XRP (RIPPLE), POL (POLYGON), MATIC (POLYGON), TRX (TRON), LTC (LITECOIN), BCH (BITCOIN_CASH), DOGE (DOGECOIN).
             * @example [
             *       "USD",
             *       "USDT"
             *     ]
             */
            currency?: ("BITCOIN" | "ETHEREUM" | "USDT" | "USDC" | "USDC_NATIVE" | "SOLANA" | "BINANCE_COIN" | "RIPPLE" | "POLYGON" | "TRON" | "LITECOIN" | "BITCOIN_CASH" | "DOGECOIN" | "USD" | "EUR" | "CHF" | "GBP" | "AUD" | "JPY" | "CNY" | "CAD" | "HKD" | "SGD" | "SEK" | "KRW" | "NOK" | "NZD" | "INR" | "MXN" | "TWD" | "ZAR" | "BRL" | "DKK" | "PLN" | "THB" | "ILS" | "IDR" | "CZK" | "AED" | "TRY" | "HUF" | "CLP" | "SAR" | "PHP" | "MYR" | "COP" | "RUB" | "RON" | "PEN")[];
            /**
             * @description Inclusive lower bound on price_usd
             * @example 10
             */
            price_usd_from?: string | number;
            /**
             * @description Inclusive upper bound on price_usd
             * @example 1000.50
             */
            price_usd_to?: string | number;
            /**
             * @description Inclusive bound: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (whole day) or ISO 8601
             * @example 2026-11-01
             */
            created_at_from?: string;
            /**
             * @description Inclusive bound: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (whole day) or ISO 8601
             * @example 2026-11-30 23:59:59
             */
            created_at_to?: string;
            /**
             * @description Exact customer email, compared case-insensitively
             * @example jane@example.com
             */
            customer_email?: string;
            /**
             * @description Only invoices having a payment through this provider
             * @example prov_ethereum_usdt
             */
            provider_id?: string;
            /**
             * @description Cursor pagination: return the invoices that come after this invoice id (pass the last item of the previous page). Keeps deep pages as fast as the first; total still counts every match. Combines with the filters (use the same ones on every page); offset, if given, skips from the cursor. 400 when the id is not a invoice of the caller's organization and mode.
             * @example invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00
             */
            starting_after?: string;
            /**
             * @description Maximum number of entries returned (default 20, at most 100)
             * @default 20
             */
            limit?: number;
            /**
             * @description Number of entries skipped (default 0)
             * @default 0
             */
            offset?: number;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        GetInvoiceRequestDto: {
            /**
             * @description Related records to include. Without a key only items, items.product, calculations, organization, payments and payments.provider are allowed. `currency` adds currency_details; items.payment_intent adds payment_intent to PAYMENT_INTENT items.
             * @example [
             *       "items",
             *       "calculations"
             *     ]
             */
            expand?: ("payments" | "payments.provider" | "items" | "items.product" | "items.billing_schema" | "items.payment_intent" | "calculations" | "organization" | "currency")[];
            /**
             * @description Adds `summary`: the invoice total in this currency, at the invoice's own rates while its rate lock holds (until expires_at), else at current rates. Any letter case is read (usd is USD). Tickers are accepted for the crypto currencies: BTC (BITCOIN), XBT (BITCOIN), ETH (ETHEREUM), SOL (SOLANA), BNB (BINANCE_COIN), XRP (RIPPLE), POL (POLYGON), MATIC (POLYGON), TRX (TRON), LTC (LITECOIN), BCH (BITCOIN_CASH), DOGE (DOGECOIN).
             * @example BITCOIN
             */
            currency?: components["schemas"]["Currency"];
        };
        InvoiceUpdatedDto: {
            /** @example invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00 */
            id: string;
            /** @example Invoice status changed to VOIDED */
            message: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        UpdateInvoiceRequestDto: {
            /**
             * @description Merchant moves: PENDING -> VOIDED; PENDING or PARTIALLY_PAID -> COMPLETED (substatus MARKED_PAID)
             * @example VOIDED
             * @enum {string}
             */
            status?: "PENDING" | "COMPLETED" | "VOIDED" | "PROCESSING" | "WAITING_FOR_CONFIRMATIONS" | "PARTIALLY_PAID";
            /**
             * @description New invoice currency; recomputes the calculations at current rates (PENDING only). Any letter case is read (usd is USD). Tickers are accepted for the crypto currencies: BTC (BITCOIN), XBT (BITCOIN), ETH (ETHEREUM), SOL (SOLANA), BNB (BINANCE_COIN), XRP (RIPPLE), POL (POLYGON), MATIC (POLYGON), TRX (TRON), LTC (LITECOIN), BCH (BITCOIN_CASH), DOGE (DOGECOIN).
             * @example ETHEREUM
             */
            currency?: components["schemas"]["Currency"];
        };
        InvoiceShortStateDto: {
            id: string;
            /** @enum {string} */
            status: "PENDING" | "COMPLETED" | "VOIDED" | "PROCESSING" | "WAITING_FOR_CONFIRMATIONS" | "PARTIALLY_PAID";
            /**
             * @description PAID_OVER: paid beyond the price (also set on a COMPLETED invoice paid again); PAID_PARTIAL; MARKED_PAID: completed by the merchant; EXPIRED; PAID_LATE: a counted payment came after expires_at; PAYMENT_REVERSED: a reorg took back a payment of a COMPLETED invoice
             * @enum {string|null}
             */
            substatus: "PAID_OVER" | "PAID_PARTIAL" | "MARKED_PAID" | "EXPIRED" | "PAID_LATE" | "PAYMENT_REVERSED" | null;
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            updated_at: string;
        };
        AvailableProviderMetadataDto: {
            /** @example 6 */
            decimals: number;
            /**
             * @description Token contract (mainnet); '' for native coins and fiat
             * @example 0xdAC17F958D2ee523a2206206994597C13D831ec7
             */
            contract_address: string;
            /** @example https://pay.example.com/assets/providers/usdt.svg */
            image_url: string;
            /** @example https://pay.example.com/assets/providers/ethereum.svg */
            image_url_network: string;
            /**
             * @description Confirmations the payment needs before the invoice counts it (0 for fiat)
             * @example 12
             */
            required_confirmations: number;
        };
        AvailableProviderDto: {
            /** @example prov_ethereum_usdt */
            id: string;
            /** @enum {string} */
            provider: "CRYPTO" | "FIAT";
            /** @example ETHEREUM */
            network: string;
            /** @example USDT */
            gateway: string;
            /**
             * @description native: the network's own coin; token: a contract on the network; card: card acquiring
             * @enum {string}
             */
            type: "native" | "token" | "card";
            /**
             * @example [
             *       "CRYPTO",
             *       "TOKEN",
             *       "STABLECOIN",
             *       "ETHEREUM"
             *     ]
             */
            filters: string[];
            metadata: components["schemas"]["AvailableProviderMetadataDto"];
            /** @example Tether USD (Ethereum, ERC-20) */
            name: string;
            currency: components["schemas"]["Currency"];
            /** @description Amount to send through this provider to cover the invoice's price_usd, rounded up to its decimals: at the invoice's own rates while its rate lock holds (until expires_at), then at the rates in force. null in live mode with live rate sources once the lock has lapsed and this currency's rate is older than RATES_MAX_AGE_SECONDS (a payment address would answer 503 rates_unavailable then); ask again once the sources answer. */
            price: string | null;
            /**
             * @description A chain rail carries it in this mode: POST /invoices/{id}/payment_address gives a deposit address for it (its network is configured in CHAINS_FILE, with the token's contract, and the organization has an active receiving wallet for it). Always true in live mode, where only such providers are listed; in test mode false for the others, which the checkout pays with POST /invoices/{id}/test_payment.
             * @example true
             */
            has_rail: boolean;
        };
        InvoiceProvidersDto: {
            providers: components["schemas"]["AvailableProviderDto"][];
            /**
             * @description Time of the rates snapshot used for price
             * @example 2026-11-20 00:00:00
             */
            exchange_rate_timestamp: string;
        };
        ProviderDto: {
            /** @example prov_ethereum_usdt */
            id: string;
            organization_id: string;
            /** @example Tether USD (Ethereum, ERC-20) */
            name: string;
            /** @example ethereum-usdt */
            slug: string;
            /**
             * @example CRYPTOCURRENCY
             * @enum {string}
             */
            type: "CRYPTOCURRENCY" | "FIAT";
            /** @description Whether the organization accepts payments through it (in this mode) */
            enabled: boolean;
            /** @example ETHEREUM */
            network: string;
            /** @example USDT */
            gateway: string;
            /** @description Currency of payments through this provider */
            currency: components["schemas"]["Currency"];
            /** @example 6 */
            decimals: number;
            /**
             * @description Token contract; '' for native coins and fiat
             * @example 0xdAC17F958D2ee523a2206206994597C13D831ec7
             */
            contract_address: string;
            /**
             * @description Confirmations a payment through it needs before it counts (0 for fiat); the organization may override the catalog value
             * @example 12
             */
            required_confirmations: number;
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            created_at: string;
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            updated_at: string;
        };
        PaymentDto: {
            /** @example payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01 */
            id: string;
            /** @description The provider's reference; absent in the payer view */
            idempotency_key?: string | null;
            organization_id: string;
            /** @example prov_ethereum_usdt */
            provider_id: string;
            invoice_id: string | null;
            /**
             * @description The chain transaction that paid it, for a payment a chain rail recorded (in the payer view too); null otherwise
             * @example 0x77756d316c6e7514f883aa0c9900a15fac019353b12bf7cf3ce9785595e77807
             */
            tx_hash: string | null;
            currency: components["schemas"]["Currency"];
            /** @description Amount in the payment currency */
            price: string;
            /** @description USD value: at the invoice's own rates when the payment happened within its rate lock (rates_taken_at to expires_at), else at the rates in force at happened_at */
            price_usd: string;
            /** @enum {string} */
            status: "PENDING" | "COMPLETED" | "FAILED" | "CANCELLED";
            /**
             * @description Blocks the payment is buried under, as last reported (0 for fiat)
             * @example 12
             */
            confirmations: number;
            /**
             * @description Confirmations it needs to count toward its invoice (fixed when first reported; 0 for fiat)
             * @example 12
             */
            required_confirmations: number;
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            created_at: string;
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            updated_at: string | null;
            /**
             * @description When the payment happened (as the provider reported it)
             * @example 2026-11-21 10:00:00
             */
            happened_at: string;
            /** @description When expand contains provider */
            provider?: components["schemas"]["ProviderDto"] | null;
        };
        PaymentListDto: {
            items: components["schemas"]["PaymentDto"][];
            total: number;
            limit: number;
            offset: number;
            has_more: boolean;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        ListPaymentsRequestDto: {
            /**
             * @description Provider ids
             * @example [
             *       "prov_ethereum_usdt",
             *       "prov_tron_usdt"
             *     ]
             */
            provider_id?: string[];
            /**
             * @description Only the payments of this invoice
             * @example invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00
             */
            invoice_id?: string;
            /**
             * @example [
             *       "COMPLETED"
             *     ]
             */
            status?: ("PENDING" | "COMPLETED" | "FAILED" | "CANCELLED")[];
            /**
             * @description Any letter case is read (usd is USD). Tickers are accepted: BTC (BITCOIN), XBT (BITCOIN), ETH (ETHEREUM), SOL (SOLANA), BNB (BINANCE_COIN), XRP (RIPPLE), POL (POLYGON), MATIC (POLYGON), TRX (TRON), LTC (LITECOIN), BCH (BITCOIN_CASH), DOGE (DOGECOIN).
             * @example [
             *       "USDT",
             *       "USDC"
             *     ]
             */
            currency?: ("BITCOIN" | "ETHEREUM" | "USDT" | "USDC" | "USDC_NATIVE" | "SOLANA" | "BINANCE_COIN" | "RIPPLE" | "POLYGON" | "TRON" | "LITECOIN" | "BITCOIN_CASH" | "DOGECOIN" | "USD" | "EUR" | "CHF" | "GBP" | "AUD" | "JPY" | "CNY" | "CAD" | "HKD" | "SGD" | "SEK" | "KRW" | "NOK" | "NZD" | "INR" | "MXN" | "TWD" | "ZAR" | "BRL" | "DKK" | "PLN" | "THB" | "ILS" | "IDR" | "CZK" | "AED" | "TRY" | "HUF" | "CLP" | "SAR" | "PHP" | "MYR" | "COP" | "RUB" | "RON" | "PEN")[];
            /**
             * @description Inclusive lower bound on price_usd
             * @example 10
             */
            price_usd_from?: string | number;
            /**
             * @description Inclusive upper bound on price_usd
             * @example 1000.50
             */
            price_usd_to?: string | number;
            /**
             * @description Inclusive bound: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (whole day) or ISO 8601
             * @example 2026-11-01
             */
            created_at_from?: string;
            /**
             * @description Inclusive bound: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (whole day) or ISO 8601
             * @example 2026-11-30 23:59:59
             */
            created_at_to?: string;
            /**
             * @description Related records to include: `provider` adds the payment's provider as the organization has it
             * @example [
             *       "provider"
             *     ]
             */
            expand?: "provider"[];
            /**
             * @description Cursor pagination: return the payments that come after this payment id (pass the last item of the previous page). Keeps deep pages as fast as the first; total still counts every match. Combines with the filters (use the same ones on every page); offset, if given, skips from the cursor. 400 when the id is not a payment of the caller's organization and mode.
             * @example payment_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01
             */
            starting_after?: string;
            /**
             * @description Maximum number of entries returned (default 20, at most 100)
             * @default 20
             */
            limit?: number;
            /**
             * @description Number of entries skipped (default 0)
             * @default 0
             */
            offset?: number;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        GetPaymentRequestDto: {
            /**
             * @description Related records to include: `provider` adds the payment's provider as the organization has it
             * @example [
             *       "provider"
             *     ]
             */
            expand?: "provider"[];
        };
        SimulatedInvoiceStateDto: {
            /** @example invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00 */
            id: string;
            /**
             * @description The invoice state after this report
             * @example WAITING_FOR_CONFIRMATIONS
             */
            status: string;
            /** @example null */
            substatus: string | null;
            /**
             * @description The invoice state before this report
             * @example PENDING
             */
            previous_status: string;
        };
        SimulatedPaymentDto: {
            /** @example payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01 */
            id: string;
            /** @enum {string} */
            status: "PENDING" | "COMPLETED" | "FAILED" | "CANCELLED";
            /** @description Whether this report created the payment (false for a repeated idempotency_key) */
            created: boolean;
            /**
             * @description Confirmations so far
             * @example 3
             */
            confirmations: number;
            /**
             * @description Confirmations it needs to count toward the invoice (0 for fiat)
             * @example 12
             */
            required_confirmations: number;
            /** @description The paid invoice, as this report left it */
            invoice: components["schemas"]["SimulatedInvoiceStateDto"];
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        SimulatePaymentRequestDto: {
            /**
             * @description The invoice paid (of the caller's organization, test mode)
             * @example invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00
             */
            invoice_id: string;
            /**
             * @description An enabled provider (GET /providers/{invoice_id})
             * @example prov_ethereum_usdt
             */
            provider_id: string;
            /**
             * @description Amount in the provider's currency, at most the provider's decimals
             * @example 25.5
             */
            price: string | number;
            /**
             * @description A new payment starts PENDING or COMPLETED; repeating an idempotency_key may report any later status
             * @default PENDING
             * @enum {string}
             */
            status?: "PENDING" | "COMPLETED";
            /**
             * @description The provider's reference; the same key reports the same payment (created once)
             * @example sim-0001
             */
            idempotency_key?: string;
            /**
             * @description Confirmations so far (crypto only). With a count the payment is COMPLETED once it reaches the provider's required_confirmations and PENDING below it, whatever status says. Without one, PENDING starts at 0 and COMPLETED counts as fully confirmed.
             * @example 3
             */
            confirmations?: number;
            /**
             * @description When the payment happened (default now): YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601. price_usd uses the rates in force then.
             * @example 2026-11-21 10:04:58
             */
            happened_at?: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        SimulatePaymentStatusRequestDto: {
            /**
             * @description PENDING may move to COMPLETED, FAILED or CANCELLED; final statuses never change
             * @example COMPLETED
             * @enum {string}
             */
            status: "PENDING" | "COMPLETED" | "FAILED" | "CANCELLED";
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        SimulatePaymentConfirmationsRequestDto: {
            /**
             * @description The payment's confirmations now; never lower than before
             * @example 12
             */
            confirmations: number;
        };
        TestPaymentInvoiceDto: {
            /** @example invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00 */
            id: string;
            /**
             * @description The invoice state after the payment
             * @example COMPLETED
             */
            status: string;
            /**
             * @description PAID_OVER after an over payment, PAID_PARTIAL after a partial one
             * @example null
             */
            substatus: string | null;
        };
        TestPaymentDto: {
            /** @example payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01 */
            id: string;
            /**
             * @example exact
             * @enum {string}
             */
            kind: "exact" | "partial" | "over";
            /** @example prov_card_usd */
            provider_id: string;
            /** @example USD */
            currency: string;
            /**
             * @description Amount paid in the provider's currency
             * @example 19.750000000000000000000000000000
             */
            price: string;
            /**
             * @description A test payment is COMPLETED at once
             * @example COMPLETED
             * @enum {string}
             */
            status: "PENDING" | "COMPLETED" | "FAILED" | "CANCELLED";
            /**
             * @description False when idempotency_key named a payment made before (nothing was paid again)
             * @example true
             */
            created: boolean;
            invoice: components["schemas"]["TestPaymentInvoiceDto"];
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        TestPaymentRequestDto: {
            /**
             * @description An enabled provider of the invoice (GET /providers/{invoice_id}), usually one with has_rail false
             * @example prov_card_usd
             */
            provider_id: string;
            /**
             * @description exact: what is still due, in the provider's currency at current rates, rounded up to its decimals (the invoice completes); partial: half of it, rounded down (PARTIALLY_PAID); over: a tenth more than it (COMPLETED, PAID_OVER)
             * @example exact
             * @enum {string}
             */
            kind: "exact" | "partial" | "over";
            /**
             * @description Any text of the caller (the checkout page sends a fresh one per click): the same key again for the same invoice answers the payment it made (created false) instead of paying twice
             * @example click-5f1d2c9a
             */
            idempotency_key?: string;
        };
        /** @enum {string} */
        EventType: "file.created" | "file.deleted" | "invoice.completed" | "invoice.created" | "invoice.expired" | "invoice.updated" | "invoice.voided" | "payment.created" | "payment.updated" | "product.created" | "product.updated" | "refund.canceled" | "refund.completed" | "refund.created" | "refund.updated" | "subscription.canceled" | "subscription.created" | "subscription.invoice_failed" | "subscription.updated" | "transfer.unmatched" | "wallet.gap_warning" | "webhook_endpoint.created" | "webhook_endpoint.deleted" | "webhook_endpoint.disabled" | "webhook_endpoint.updated";
        EventDataDto: {
            /** @description The resource as of the event, in the shape its own endpoint returns */
            object: {
                [key: string]: unknown;
            };
            /**
             * @description On updates: the changed fields with their values before the change
             * @example {
             *       "status": "PENDING"
             *     }
             */
            previous_attributes?: {
                [key: string]: unknown;
            };
        };
        EventDto: {
            /** @example event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            id: string;
            /** @example invoice.completed */
            type: components["schemas"]["EventType"];
            /**
             * @description UTC, YYYY-MM-DD HH:MM:SS
             * @example 2026-11-21 10:00:00
             */
            created_at: string;
            /** @example org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e00 */
            organization_id: string;
            /** @enum {string} */
            mode: "test" | "live";
            data: components["schemas"]["EventDataDto"];
        };
        EventListDto: {
            items: components["schemas"]["EventDto"][];
            /**
             * @description Matching events, counted up to 10,000 (or up to the end of the requested page when that is further). Past that, this is the count reached and `total_exact` is false.
             * @example 1
             */
            total: number;
            /**
             * @description False when more events match than `total` says. `has_more` stays exact either way: page on until it is false.
             * @example true
             */
            total_exact: boolean;
            /** @example 20 */
            limit: number;
            /** @example 0 */
            offset: number;
            /** @example false */
            has_more: boolean;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        ListEventsRequestDto: {
            /**
             * @description One event type or several (any of them)
             * @example [
             *       "invoice.completed",
             *       "payment.updated"
             *     ]
             */
            type?: ("file.created" | "file.deleted" | "invoice.completed" | "invoice.created" | "invoice.expired" | "invoice.updated" | "invoice.voided" | "payment.created" | "payment.updated" | "product.created" | "product.updated" | "refund.canceled" | "refund.completed" | "refund.created" | "refund.updated" | "subscription.canceled" | "subscription.created" | "subscription.invoice_failed" | "subscription.updated" | "transfer.unmatched" | "wallet.gap_warning" | "webhook_endpoint.created" | "webhook_endpoint.deleted" | "webhook_endpoint.disabled" | "webhook_endpoint.updated") | ("file.created" | "file.deleted" | "invoice.completed" | "invoice.created" | "invoice.expired" | "invoice.updated" | "invoice.voided" | "payment.created" | "payment.updated" | "product.created" | "product.updated" | "refund.canceled" | "refund.completed" | "refund.created" | "refund.updated" | "subscription.canceled" | "subscription.created" | "subscription.invoice_failed" | "subscription.updated" | "transfer.unmatched" | "wallet.gap_warning" | "webhook_endpoint.created" | "webhook_endpoint.deleted" | "webhook_endpoint.disabled" | "webhook_endpoint.updated")[];
            /**
             * @description Inclusive bound: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (whole day) or ISO 8601
             * @example 2026-11-01
             */
            created_at_from?: string;
            /**
             * @description Inclusive bound: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (whole day) or ISO 8601
             * @example 2026-11-30 23:59:59
             */
            created_at_to?: string;
            /**
             * @description Maximum number of entries returned (default 20, at most 100)
             * @default 20
             */
            limit?: number;
            /**
             * @description Number of entries skipped (default 0)
             * @default 0
             */
            offset?: number;
        };
        WebhookEndpointWithSecretDto: {
            /** @example webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            id: string;
            /** @example https://merchant.example.com/webhooks */
            url: string;
            /** @example Order fulfilment */
            description: string | null;
            /**
             * @example [
             *       "payment.created",
             *       "payment.updated",
             *       "invoice.completed"
             *     ]
             */
            event_types: string[];
            /** @example true */
            enabled: boolean;
            /**
             * @description Why the endpoint was disabled
             * @example null
             */
            disabled_reason: string | null;
            /**
             * @description Deliveries in a row that failed every attempt
             * @example 0
             */
            consecutive_failures: number;
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
            /** @example 2026-11-21 10:00:00 */
            updated_at: string;
            /**
             * @description Signing secret (Standard Webhooks). Shown only here: store it
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        CreateWebhookRequestDto: {
            /**
             * @description Where deliveries are POSTed. With the address guard on (production): https, public addresses only
             * @example https://merchant.example.com/webhooks
             */
            url: string;
            /**
             * @description The event types sent to this endpoint, or `*` for all (including types added later)
             * @example [
             *       "payment.created",
             *       "payment.updated",
             *       "invoice.completed"
             *     ]
             */
            event_types: ("*" | "file.created" | "file.deleted" | "invoice.completed" | "invoice.created" | "invoice.expired" | "invoice.updated" | "invoice.voided" | "payment.created" | "payment.updated" | "product.created" | "product.updated" | "refund.canceled" | "refund.completed" | "refund.created" | "refund.updated" | "subscription.canceled" | "subscription.created" | "subscription.invoice_failed" | "subscription.updated" | "transfer.unmatched" | "wallet.gap_warning" | "webhook_endpoint.created" | "webhook_endpoint.deleted" | "webhook_endpoint.disabled" | "webhook_endpoint.updated") | ("*" | "file.created" | "file.deleted" | "invoice.completed" | "invoice.created" | "invoice.expired" | "invoice.updated" | "invoice.voided" | "payment.created" | "payment.updated" | "product.created" | "product.updated" | "refund.canceled" | "refund.completed" | "refund.created" | "refund.updated" | "subscription.canceled" | "subscription.created" | "subscription.invoice_failed" | "subscription.updated" | "transfer.unmatched" | "wallet.gap_warning" | "webhook_endpoint.created" | "webhook_endpoint.deleted" | "webhook_endpoint.disabled" | "webhook_endpoint.updated")[];
            /** @example Order fulfilment */
            description?: string | null;
            /**
             * @description false registers it paused
             * @default true
             */
            enabled?: boolean;
        };
        WebhookEndpointDto: {
            /** @example webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            id: string;
            /** @example https://merchant.example.com/webhooks */
            url: string;
            /** @example Order fulfilment */
            description: string | null;
            /**
             * @example [
             *       "payment.created",
             *       "payment.updated",
             *       "invoice.completed"
             *     ]
             */
            event_types: string[];
            /** @example true */
            enabled: boolean;
            /**
             * @description Why the endpoint was disabled
             * @example null
             */
            disabled_reason: string | null;
            /**
             * @description Deliveries in a row that failed every attempt
             * @example 0
             */
            consecutive_failures: number;
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
            /** @example 2026-11-21 10:00:00 */
            updated_at: string;
        };
        WebhookEndpointListDto: {
            items: components["schemas"]["WebhookEndpointDto"][];
            /** @example 1 */
            total: number;
            /** @example 20 */
            limit: number;
            /** @example 0 */
            offset: number;
            /** @example false */
            has_more: boolean;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        UpdateWebhookRequestDto: {
            /** @example https://merchant.example.com/webhooks/v2 */
            url?: string;
            /**
             * @description The event types sent to this endpoint, or `*` for all (including types added later)
             * @example [
             *       "payment.created",
             *       "payment.updated",
             *       "invoice.completed"
             *     ]
             */
            event_types?: ("*" | "file.created" | "file.deleted" | "invoice.completed" | "invoice.created" | "invoice.expired" | "invoice.updated" | "invoice.voided" | "payment.created" | "payment.updated" | "product.created" | "product.updated" | "refund.canceled" | "refund.completed" | "refund.created" | "refund.updated" | "subscription.canceled" | "subscription.created" | "subscription.invoice_failed" | "subscription.updated" | "transfer.unmatched" | "wallet.gap_warning" | "webhook_endpoint.created" | "webhook_endpoint.deleted" | "webhook_endpoint.disabled" | "webhook_endpoint.updated") | ("*" | "file.created" | "file.deleted" | "invoice.completed" | "invoice.created" | "invoice.expired" | "invoice.updated" | "invoice.voided" | "payment.created" | "payment.updated" | "product.created" | "product.updated" | "refund.canceled" | "refund.completed" | "refund.created" | "refund.updated" | "subscription.canceled" | "subscription.created" | "subscription.invoice_failed" | "subscription.updated" | "transfer.unmatched" | "wallet.gap_warning" | "webhook_endpoint.created" | "webhook_endpoint.deleted" | "webhook_endpoint.disabled" | "webhook_endpoint.updated")[];
            /**
             * @description null clears it
             * @example Order fulfilment
             */
            description?: string | null;
            /**
             * @description false pauses the endpoint (its pending deliveries are cancelled); true re-enables it and resets its failure count
             * @example true
             */
            enabled?: boolean;
        };
        DeletedWebhookDto: {
            /** @example webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            id: string;
            /** @example true */
            deleted: boolean;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        RotateSecretRequestDto: {
            /**
             * @description Seconds during which deliveries are also signed with the old secret (0: the old secret stops at once)
             * @default 0
             * @example 86400
             */
            grace_period_seconds?: number;
        };
        WebhookAttemptDto: {
            /** @example attempt_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            id: string;
            /** @example delivery_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            delivery_id: string;
            /** @example event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            event_id: string;
            /** @example invoice.completed */
            event_type: string;
            /**
             * @description 1 for the first attempt of a delivery
             * @example 1
             */
            attempt_number: number;
            /** @example https://merchant.example.com/webhooks */
            url: string;
            /** @example false */
            succeeded: boolean;
            /** @example 500 */
            response_status: number | null;
            /**
             * @description The first 1024 characters of the answer
             * @example Internal Server Error
             */
            response_body: string | null;
            /** @example endpoint answered HTTP 500 */
            error: string | null;
            /** @example 84 */
            duration_ms: number;
            /**
             * @description When the next attempt is due, if one was scheduled
             * @example 2026-11-21 10:00:05
             */
            next_attempt_at: string | null;
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
        };
        WebhookAttemptListDto: {
            items: components["schemas"]["WebhookAttemptDto"][];
            /**
             * @description Matching attempts, counted up to 10,000 (or up to the end of the requested page when that is further). Past that, this is the count reached and `total_exact` is false.
             * @example 1
             */
            total: number;
            /**
             * @description False when more attempts match than `total` says. `has_more` stays exact either way: page on until it is false.
             * @example true
             */
            total_exact: boolean;
            /** @example 20 */
            limit: number;
            /** @example 0 */
            offset: number;
            /** @example false */
            has_more: boolean;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        ListAttemptsRequestDto: {
            /**
             * @description Only the attempts for this event
             * @example event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f
             */
            event_id?: string;
            /**
             * @description Maximum number of entries returned (default 20, at most 100)
             * @default 20
             */
            limit?: number;
            /**
             * @description Number of entries skipped (default 0)
             * @default 0
             */
            offset?: number;
        };
        QueuedDeliveryDto: {
            /** @example delivery_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            delivery_id: string;
            /** @example webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            endpoint_id: string;
            /** @example event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            event_id: string;
            /** @enum {string} */
            status: "pending";
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        RedeliverRequestDto: {
            /**
             * @description An event of the same organization and mode
             * @example event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f
             */
            event_id: string;
        };
        CurrencyFiguresDto: {
            /** @example USDT */
            currency: string;
            /**
             * @description Payments of the window in this currency, every status
             * @example 812
             */
            count: number;
            /**
             * @description USD value of the COMPLETED ones
             * @example 40210.500000000000000000000000000000
             */
            volume_usd: string;
        };
        PaymentFiguresDto: {
            /**
             * @description Payments whose happened_at is in the window, every status
             * @example 1204
             */
            count: number;
            /** @example 1100 */
            completed_count: number;
            /**
             * @description Sum of price_usd of the COMPLETED payments
             * @example 52110.250000000000000000000000000000
             */
            volume_usd: string;
            /** @description Every payment state, 0 when none */
            by_status: {
                PENDING?: number;
                COMPLETED?: number;
                FAILED?: number;
                CANCELLED?: number;
            };
            /** @description Currencies with payments in the window, by volume (then count, then currency) */
            by_currency: components["schemas"]["CurrencyFiguresDto"][];
        };
        InvoiceFiguresDto: {
            /**
             * @description Invoices whose created_at is in the window
             * @example 500
             */
            count: number;
            /** @description Their current states, 0 when none */
            by_status: {
                PENDING?: number;
                COMPLETED?: number;
                VOIDED?: number;
                PROCESSING?: number;
                WAITING_FOR_CONFIRMATIONS?: number;
                PARTIALLY_PAID?: number;
            };
            /**
             * @description Invoices of the window that are COMPLETED now
             * @example 410
             */
            paid_count: number;
            /**
             * @description Sum of price_usd of those COMPLETED invoices
             * @example 48000.000000000000000000000000000000
             */
            paid_volume_usd: string;
            /**
             * @description Mean price_usd of the invoices of the window (every state); 0 when none
             * @example 117.073170731707317073170731707317
             */
            average_price_usd: string;
            /**
             * @description paid_count / count; 0 when count is 0
             * @example 0.820000000000000000000000000000
             */
            conversion_rate: string;
        };
        ProviderFiguresDto: {
            /** @example prov_ethereum_usdt */
            provider_id: string;
            /** @example Tether USD (Ethereum, ERC-20) */
            name: string;
            /**
             * @description Payments of the window through this provider, every status
             * @example 812
             */
            payments_count: number;
            /**
             * @description USD value of its COMPLETED payments
             * @example 40210.500000000000000000000000000000
             */
            volume_usd: string;
            /**
             * @description volume_usd / payments.volume_usd; 0 when that is 0
             * @example 0.771640323880302932853826213850
             */
            share: string;
        };
        TopCustomerDto: {
            /**
             * @description Lower-cased
             * @example jane@example.com
             */
            customer_email: string;
            /**
             * @description Invoices of this customer in the window
             * @example 12
             */
            invoices_count: number;
            /**
             * @description Sum of price_usd of this customer's invoices of the window that are COMPLETED
             * @example 2400.000000000000000000000000000000
             */
            paid_volume_usd: string;
        };
        CustomerFiguresDto: {
            /**
             * @description Distinct customer_email (case-insensitive) of the invoices of the window
             * @example 230
             */
            unique: number;
            /**
             * @description Customers whose first invoice ever is in the window
             * @example 40
             */
            new: number;
            /**
             * @description unique - new: customers of the window who had invoiced before it
             * @example 190
             */
            returning: number;
            /** @description Up to 5 customers with paid_volume_usd > 0, by paid_volume_usd (then invoices_count, then email) */
            top: components["schemas"]["TopCustomerDto"][];
        };
        SeriesPointDto: {
            /**
             * @description Bucket start (UTC): YYYY-MM-DD per day, YYYY-MM-DD HH:00:00 per hour for last_day / prev_last_day
             * @example 2026-11-21
             */
            date: string;
            /**
             * @description USD value of the COMPLETED payments that happened in the bucket
             * @example 1520.000000000000000000000000000000
             */
            payments_volume_usd: string;
            /**
             * @description Invoices created in the bucket
             * @example 17
             */
            invoices_count: number;
        };
        RefundFiguresDto: {
            /**
             * @description Refunds created in the window that are not CANCELED or EXPIRED
             * @example 2
             */
            count: number;
            /**
             * @description Refunds COMPLETED in the window
             * @example 1
             */
            completed_count: number;
            /**
             * @description USD value of the refunds COMPLETED in the window
             * @example 20.000000000000000000000000000000
             */
            refunded_usd: string;
        };
        SubscriptionCurrencyDto: {
            /** @example USD */
            currency: string;
            /**
             * @description Monthly recurring revenue in the schemas' currency
             * @example 120.000000000000000000000000000000
             */
            mrr: string;
            /**
             * @description The same in USD at current rates
             * @example 120.000000000000000000000000000000
             */
            mrr_usd: string;
        };
        SubscriptionFiguresDto: {
            /**
             * @description Subscriptions ACTIVE now
             * @example 12
             */
            active_count: number;
            /**
             * @description Subscriptions PAST_DUE now (a period invoice voided unpaid)
             * @example 1
             */
            past_due_count: number;
            /**
             * @description Subscriptions CANCELED
             * @example 3
             */
            canceled_count: number;
            /**
             * @description Monthly recurring revenue of the ACTIVE and PAST_DUE subscriptions in USD at current rates: base price x quantity per month (a yearly price / 12, a weekly one x 52 / 12, a daily one x 365 / 12; divided by interval_count); usage is left out
             * @example 130.000000000000000000000000000000
             */
            mrr_usd: string;
            /** @description mrr_usd by currency, largest first */
            mrr_by_currency: components["schemas"]["SubscriptionCurrencyDto"][];
        };
        DashboardDto: {
            /**
             * @example last_7_days
             * @enum {string}
             */
            period: "last_day" | "last_7_days" | "last_30_days" | "last_90_days" | "last_365_days" | "prev_last_day" | "prev_last_7_days" | "prev_last_30_days" | "prev_last_90_days" | "prev_last_365_days";
            /**
             * @description Window start (inclusive, UTC)
             * @example 2026-11-15 00:00:00
             */
            from: string;
            /**
             * @description Window end (exclusive, UTC): for last_* the end of the hour or day in progress
             * @example 2026-11-22 00:00:00
             */
            to: string;
            payments: components["schemas"]["PaymentFiguresDto"];
            invoices: components["schemas"]["InvoiceFiguresDto"];
            /** @description Providers with payments in the window, by volume (then count, then id) */
            providers: components["schemas"]["ProviderFiguresDto"][];
            customers: components["schemas"]["CustomerFiguresDto"];
            /** @description One point per bucket of the window, oldest first, zero-filled */
            series: components["schemas"]["SeriesPointDto"][];
            /** @description Refunds (POST /invoices/{id}/refunds) of the window */
            refunds: components["schemas"]["RefundFiguresDto"];
            /**
             * @description payments.volume_usd less refunds.refunded_usd: revenue net of the refunds completed in the window
             * @example 230.000000000000000000000000000000
             */
            net_volume_usd: string;
            /** @description Subscriptions as they stand now, whatever the period */
            subscriptions: components["schemas"]["SubscriptionFiguresDto"];
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        DashboardRequestDto: {
            /**
             * @description last_day: the current UTC hour and the 23 before it (hourly series). last_N_days: the current UTC day and the N-1 before it (daily series). prev_X: the window of the same length just before X.
             * @example last_30_days
             * @enum {string}
             */
            period: "last_day" | "last_7_days" | "last_30_days" | "last_90_days" | "last_365_days" | "prev_last_day" | "prev_last_7_days" | "prev_last_30_days" | "prev_last_90_days" | "prev_last_365_days";
        };
        ClockStateDto: {
            /**
             * @description Now for the caller's organization in test mode (UTC, YYYY-MM-DD HH:MM:SS)
             * @example 2026-11-21 10:15:00
             */
            now: string;
            /**
             * @description The same instant with milliseconds (ISO 8601)
             * @example 2026-11-21T10:15:00.123Z
             */
            now_iso: string;
            /**
             * @description How far ahead of real time this organization's test mode runs, in whole seconds
             * @example 900
             */
            offset_seconds: number;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        AdvanceClockRequestDto: {
            /**
             * @description Seconds to move the caller's test clock forward
             * @example 900
             */
            advance_seconds: number;
        };
        WalletDto: {
            /** @example wallet_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00 */
            id: string;
            /**
             * @example evm
             * @enum {string}
             */
            chain_family: "evm" | "utxo" | "tron" | "solana";
            /**
             * @description The network a utxo wallet receives on (bitcoin, litecoin, dogecoin, bitcoin_cash); null for an evm wallet (all EVM networks)
             * @example null
             */
            network: string | null;
            /**
             * @description Address at index 0 of the receive chain: compare it with the first address your wallet shows
             * @example 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266
             */
            first_address: string;
            /**
             * @description New deposit addresses come from this wallet (one active per organization, mode and family; registering another replaces it)
             * @example true
             */
            active: boolean;
            /**
             * @description Addresses handed out from this wallet's key so far, by any wallet of the key (receive indexes 0 to addresses_issued - 1; raise your wallet's address gap limit past it)
             * @example 3
             */
            addresses_issued: number;
            /**
             * @description Addresses issued after the last one that received money (all of them while none did). Past 20 a wallet app scanning the default gap may not show new payments: a wallet.gap_warning event is sent when it first exceeds 20
             * @example 3
             */
            unused_gap: number;
            /** @example 2026-11-21 10:00:00 */
            created_at: string;
            /**
             * @description When another wallet replaced it
             * @example null
             */
            replaced_at: string | null;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        RegisterWalletRequestDto: {
            /**
             * @description Chain family the key receives on (evm: Ethereum, Polygon, BNB Smart Chain, one key for all; utxo: Bitcoin, Litecoin, Dogecoin, Bitcoin Cash, one key per network; tron: TRX and USDT on Tron, the account key of m/44'/195'/0'; solana: SOL, USDC and USDT on Solana, the wallet's address)
             * @example evm
             * @enum {string}
             */
            chain_family: "evm" | "utxo" | "tron" | "solana";
            /**
             * @description BIP32 extended public key at account level (m/44'/60'/0' as wallets export it; m/44'/195'/0' for Tron, whose addresses are base58 T...). Addresses are m/.../0/i of it. On UTXO networks also the versions wallets export (xpub/ypub/zpub, tpub/upub/vpub, Ltub/Mtub/ttub, dgub; the version decides P2PKH, P2WPKH-in-P2SH or P2WPKH; CashAddr on Bitcoin Cash) or an output descriptor (wpkh(...), pkh(...), sh(wpkh(...)), with or without its key origin, /0/* and #checksum; a checksum given must match, BIP-380). A private key (xprv..., WIF, hex), a recovery phrase, or a key of another coin or network (a mainnet key in test mode) is refused with 400 and never stored or logged. Required for every family but solana (which takes address).
             * @example xpub6Ce9NcJvTk36xtLSrJLZqE7wtgA5deCeYs7rSQtreh4cj6ByPtrg9sD7V2FNFLPnf8heNP3FGkeV9qwfzvZNSd54JoNXVsXFYSYwHsnJxqP
             */
            xpub?: string;
            /**
             * @description The wallet's address, for chain_family solana (required there, instead of xpub; not taken for the other families): a base58 ed25519 public key on the curve, as the wallet shows it. A token account (off the curve), a secret key or a recovery phrase is refused with 400.
             * @example mvines9iiHiQTysrwkJjGf2gb9Ex9jXJX8ns3qwf2kN
             */
            address?: string;
            /**
             * @description The network a utxo key receives on (required for chain_family utxo; not taken for evm or tron)
             * @example litecoin
             * @enum {string}
             */
            network?: "bitcoin" | "litecoin" | "dogecoin" | "bitcoin_cash";
        };
        WalletListDto: {
            items: components["schemas"]["WalletDto"][];
            /** @example 1 */
            total: number;
            /** @example 20 */
            limit: number;
            /** @example 0 */
            offset: number;
            /** @example false */
            has_more: boolean;
        };
        DeletedWalletDto: {
            /** @example wallet_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00 */
            id: string;
            /** @example true */
            deleted: boolean;
        };
        PaymentAddressDto: {
            /** @example prov_ethereum_usdt */
            provider_id: string;
            /** @example ETHEREUM */
            network: string;
            /** @example USDT */
            currency: string;
            /**
             * @description Deposit address in the chain's form (EIP-55 on EVM chains; bech32, base58 or CashAddr on UTXO chains), the same for the same invoice and provider
             * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
             */
            address: string;
            /**
             * @description Still due through this provider at the invoice's locked rates (payments completed or waiting for confirmations deducted), rounded up to `decimals`
             * @example 25.494902000000000000000000000000
             */
            amount: string;
            /** @example 6 */
            decimals: number;
            /**
             * @description EVM chain id (on Tron, the chain id its JSON-RPC answers); null on UTXO chains
             * @example 1
             */
            chain_id: number | null;
            /**
             * @description Token contract; null for the network's coin
             * @example 0xdAC17F958D2ee523a2206206994597C13D831ec7
             */
            contract_address: string | null;
            /**
             * @description Solana: the payment's reference key (base58; a fresh one per invoice and provider, never reused). The wallet in `address` receives every payment; a payment counts for this invoice when its transaction carries this key (the uri adds it; a wallet paying by hand cannot). Null on other chains
             * @example null
             */
            reference: string | null;
            /**
             * @description Payment request for wallet apps (QR code): EIP-681 on EVM chains (native: ethereum:<address>@<chain_id>?value=<wei>); BIP21 on UTXO chains (litecoin:<address>?amount=<coin>, with the network's scheme); a Solana Pay transfer request on Solana (solana:<wallet>?amount=<coin>&spl-token=<mint>&reference=<reference>&message=...); null on Tron, which has no payment-URI standard (show the address, the amount and a QR code of the address)
             * @example ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=25494902
             */
            uri: string | null;
            /**
             * @description When the invoice's rates stop holding
             * @example 2026-11-21 10:15:00
             */
            expires_at: string | null;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        PaymentAddressRequestDto: {
            /**
             * @description A chain provider of GET /providers/{invoice_id}: prov_ethereum_ethereum, prov_ethereum_usdt, prov_ethereum_usdc, prov_polygon_polygon, prov_polygon_usdc_native, prov_bsc_binance_coin, prov_bitcoin_bitcoin, prov_litecoin_litecoin, prov_dogecoin_dogecoin, prov_bitcoin_cash_bitcoin_cash
             * @example prov_ethereum_usdt
             */
            provider_id: string;
        };
        UnmatchedTransferDto: {
            /** @example unmatched_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e10 */
            id: string;
            /**
             * @description OPEN: no payment records it; RESOLVED: a retry recorded it as payment_id
             * @example OPEN
             * @enum {string}
             */
            status: "OPEN" | "RESOLVED";
            /**
             * @description Why the payments module refused it the last time: provider_disabled (the provider was disabled after the address was handed out), invoice_not_found, validation_failed, invalid_state_transition, ...; no_known_reference: money that reached your Solana wallet in a transaction without a reference of a payment address this service handed out (sent by hand, from an exchange), so no invoice is known (invoice_id null; it cannot be retried); several_references: money to your Solana wallet in a transaction naming the references of more than one payment address (which invoice it pays cannot be told; invoice_id null, it cannot be retried)
             * @example provider_disabled
             */
            reason_code: string;
            /** @example Invalid request: provider_id provider prov_ethereum_usdt is disabled for this organization */
            reason: string;
            /**
             * @description The invoice the deposit address was handed out for; null when no invoice is known (reason_code no_known_reference)
             * @example invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00
             */
            invoice_id: string | null;
            /**
             * @description The provider of what was sent (the coin or the token)
             * @example prov_ethereum_usdt
             */
            provider_id: string;
            /** @example ETHEREUM */
            network: string;
            /** @example USDT */
            currency: string;
            /**
             * @description What arrived, in the provider's currency
             * @example 25.494902000000000000000000000000
             */
            amount: string;
            /**
             * @description The deposit address that received it (on Solana, the wallet: payments to it are told apart by their reference)
             * @example 0x70997970C51812dc3A010C7d01b50e0d17dc79C8
             */
            address: string;
            /** @example 0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071 */
            tx_hash: string;
            /**
             * @description Index of the token's Transfer log in its block; null for the network's coin
             * @example 3
             */
            log_index: number | null;
            /** @example 21000123 */
            block_number: number;
            /**
             * @description The idempotency key of the payment it becomes: <network>:<tx_hash>:<log_index|native> (Solana: solana:<signature>:<reference>; without an invoice solana:<signature>:<wallet>:<mint|native>, which keeps it once)
             * @example ethereum:0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071:3
             */
            idempotency_key: string;
            /**
             * @description A chain reorganization took its block away (on Solana: the node no longer knows its confirmed transaction, its fork dropped): it cannot be retried until the watcher finds it again
             * @example false
             */
            in_doubt: boolean;
            /**
             * @description Times the payment was asked for (the watcher, then each retry)
             * @example 1
             */
            attempts: number;
            /**
             * @description The payment a retry recorded
             * @example null
             */
            payment_id: string | null;
            /**
             * @description The block's time as the chain reports it
             * @example 2026-11-21 10:04:58
             */
            happened_at: string;
            /**
             * @description When the watcher first kept it
             * @example 2026-11-21 10:05:01
             */
            created_at: string;
            /** @example 2026-11-21 10:05:01 */
            updated_at: string;
            /** @example null */
            resolved_at: string | null;
        };
        UnmatchedTransferListDto: {
            items: components["schemas"]["UnmatchedTransferDto"][];
            /** @example 1 */
            total: number;
            /** @example 20 */
            limit: number;
            /** @example 0 */
            offset: number;
            /** @example false */
            has_more: boolean;
        };
        RefundDto: {
            /** @example refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20 */
            id: string;
            /** @example invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00 */
            invoice_id: string;
            /**
             * @description AWAITING_DESTINATION (the payer has not named where yet) -> AWAITING_PAYOUT (send `payout`) -> SENT (reported; confirmations counting) -> COMPLETED; CANCELED (by you, before it is sent) or EXPIRED (no destination by expires_at)
             * @example AWAITING_PAYOUT
             * @enum {string}
             */
            status: "AWAITING_DESTINATION" | "AWAITING_PAYOUT" | "SENT" | "COMPLETED" | "CANCELED" | "EXPIRED";
            /** @example 10.000000000000000000000000000000 */
            amount: string;
            /** @example USD */
            currency: string;
            /**
             * @description USD value at the refund rates; counts against the invoice paid amount
             * @example 10.000000000000000000000000000000
             */
            amount_usd: string;
            /**
             * @description `invoice`: the rates the invoice was paid at (its last completed payment's) value the refund and fix the payout's coin amount (in a coin the invoice was not paid with, the rates of the claim). `current`: the rates of the refund's creation value it (amount_usd), and the payout's coin amount is fixed at the rates of the moment the payer claims it.
             * @example invoice
             * @enum {string}
             */
            rate: "invoice" | "current";
            /** @example Order 1234 cancelled */
            reason: string | null;
            /**
             * @description Send it to the payer: the page where they name where the refund goes
             * @example https://pay.example.com/refund_claims/rc_9J4dQeYk1m2c0sVbUxZr7aLpWnTqHf3o
             */
            claim_url: string;
            /**
             * @description Until when the payer may name a destination
             * @example 2026-11-28 10:00:00
             */
            expires_at: string;
            /** @description Where the payer asked it to go; null until then */
            destination?: {
                /** @example prov_ethereum_usdt */
                provider_id: string;
                /** @example ETHEREUM */
                network: string;
                /** @example 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed */
                address: string;
            } | null;
            /** @description What to send, fixed when the payer gave the destination; null until then */
            payout?: {
                /** @example prov_ethereum_usdt */
                provider_id: string;
                /** @example ETHEREUM */
                network: string;
                /** @example USDT */
                currency: string;
                /** @example 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed */
                address: string;
                /**
                 * @description What to send, in `currency`: the refund's USD value at its rates, rounded DOWN to the coin's decimals (never more than the refund is worth)
                 * @example 10.000000000000000000000000000000
                 */
                amount: string;
                /**
                 * @description Payment request your wallet opens (EIP-681 on EVM chains, BIP21 on UTXO chains; null on Tron, which has no payment-URI standard: send `amount` to `address`; in test mode without a rail a plain <network>:<address>?amount=<coin>)
                 * @example ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=10000000
                 */
                uri: string | null;
                /**
                 * @description The transaction you reported (POST /refunds/{id}/sent)
                 * @example null
                 */
                tx_hash: string | null;
                /**
                 * @description Blocks on top of the reported transaction, 1 in the block that mined it
                 * @example 0
                 */
                confirmations: number;
                /**
                 * @description Confirmations to COMPLETED (the provider's required confirmations)
                 * @example 12
                 */
                required_confirmations: number;
            } | null;
            /** @example 2026-11-27 10:00:00 */
            created_at: string;
            /** @example 2026-11-27 10:05:00 */
            updated_at: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        CreateRefundRequestDto: {
            /**
             * @description How much to give back, in `currency`. Default: everything still refundable (completed payments less refunds not canceled or expired), in the invoice's currency.
             * @example 10.00
             */
            amount?: string | number;
            /**
             * @description Currency of `amount`; default: the invoice's currency. Any letter case is read (usd is USD). Tickers are accepted for the crypto currencies: BTC (BITCOIN), XBT (BITCOIN), ETH (ETHEREUM), SOL (SOLANA), BNB (BINANCE_COIN), XRP (RIPPLE), POL (POLYGON), MATIC (POLYGON), TRX (TRON), LTC (LITECOIN), BCH (BITCOIN_CASH), DOGE (DOGECOIN).
             * @example USD
             */
            currency?: components["schemas"]["Currency"];
            /**
             * @description Rates that value the refund and fix the payer's coin amount: `invoice`, the rates the invoice was paid at (default; those its last completed payment was valued at: the invoice's own for a payment within the rate lock, the payment's moment for a late one), so the payer gets back the coins they paid (a payout in a coin the invoice was not paid with, offered when none of those can be paid out, is fixed at the rates of the claim: it has no rate the payer paid at), or `current`: the refund's USD value at the rates of its creation, and the coin amount at the rates of the moment the payer claims it (names the destination).
             * @default invoice
             * @example invoice
             * @enum {string}
             */
            rate?: "invoice" | "current";
            /**
             * @description Why; shown to the merchant only (not on the claim page)
             * @example Order 1234 cancelled
             */
            reason?: string;
            /**
             * @description How long the payer has to name a destination (default 7 days); after it the refund is EXPIRED and its amount refundable again
             * @default 10080
             * @example 1440
             */
            expires_in_minutes?: number;
        };
        RefundListDto: {
            items: components["schemas"]["RefundDto"][];
            /** @example 1 */
            total: number;
            /** @example 20 */
            limit: number;
            /** @example 0 */
            offset: number;
            /** @example false */
            has_more: boolean;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        ReportRefundSentRequestDto: {
            /**
             * @description Hash of the transaction that pays the refund from your wallet: 0x + 64 hex digits on EVM chains, the txid (64 hex digits) on UTXO chains
             * @example 0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071
             */
            tx_hash: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        SimulateRefundPayoutRequestDto: {
            /**
             * @description `paid`: the payout arrived in full, the refund is COMPLETED; `short`: it paid the destination less than the payout, the refund goes back to AWAITING_PAYOUT (payout_mismatch)
             * @example paid
             * @enum {string}
             */
            result: "paid" | "short";
        };
        ClaimMethodDto: {
            /** @example prov_ethereum_usdt */
            provider_id: string;
            /** @example Tether USD */
            name: string;
            /** @example ETHEREUM */
            network: string;
            /** @example USDT */
            currency: string;
        };
        ClaimMerchantDto: {
            /**
             * @description The organization's name
             * @example Acme
             */
            name: string;
        };
        ClaimInvoiceItemDto: {
            /**
             * @description The product's name; null for a payment intent (an amount without a product)
             * @example Pro plan
             */
            name: string | null;
            /** @example 1 */
            quantity: number;
        };
        ClaimInvoiceDto: {
            /** @example invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00 */
            id: string;
            /** @description The invoice's items, as its checkout page lists them */
            items: components["schemas"]["ClaimInvoiceItemDto"][];
        };
        RefundClaimStateDto: {
            /**
             * @example AWAITING_PAYOUT
             * @enum {string}
             */
            status: "AWAITING_DESTINATION" | "AWAITING_PAYOUT" | "SENT" | "COMPLETED" | "CANCELED" | "EXPIRED";
            /** @example 10.000000000000000000000000000000 */
            amount: string;
            /** @example USD */
            currency: string;
            /** @example 10.000000000000000000000000000000 */
            amount_usd: string;
            /** @example 2026-11-28 10:00:00 */
            expires_at: string;
            /** @description Ways the refund may be taken (only while AWAITING_DESTINATION) */
            methods: components["schemas"]["ClaimMethodDto"][];
            /** @description Fixed once a destination is given */
            payout?: {
                /** @example prov_ethereum_usdt */
                provider_id: string;
                /** @example ETHEREUM */
                network: string;
                /** @example USDT */
                currency: string;
                /** @example 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed */
                address: string;
                /**
                 * @description What to send, in `currency`: the refund's USD value at its rates, rounded DOWN to the coin's decimals (never more than the refund is worth)
                 * @example 10.000000000000000000000000000000
                 */
                amount: string;
                /**
                 * @description Payment request your wallet opens (EIP-681 on EVM chains, BIP21 on UTXO chains; null on Tron, which has no payment-URI standard: send `amount` to `address`; in test mode without a rail a plain <network>:<address>?amount=<coin>)
                 * @example ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=10000000
                 */
                uri: string | null;
            } | null;
            /**
             * @description A test-mode refund: no real money moves, and the claim page offers the test payout control
             * @example true
             */
            test_mode: boolean;
            /** @description Who refunds */
            merchant: components["schemas"]["ClaimMerchantDto"];
            /** @description The invoice refunded */
            invoice: components["schemas"]["ClaimInvoiceDto"];
        };
        RefundClaimDto: {
            /**
             * @example AWAITING_PAYOUT
             * @enum {string}
             */
            status: "AWAITING_DESTINATION" | "AWAITING_PAYOUT" | "SENT" | "COMPLETED" | "CANCELED" | "EXPIRED";
            /** @example 10.000000000000000000000000000000 */
            amount: string;
            /** @example USD */
            currency: string;
            /** @example 10.000000000000000000000000000000 */
            amount_usd: string;
            /** @example 2026-11-28 10:00:00 */
            expires_at: string;
            /** @description Ways the refund may be taken (only while AWAITING_DESTINATION) */
            methods: components["schemas"]["ClaimMethodDto"][];
            /** @description Fixed once a destination is given */
            payout?: {
                /** @example prov_ethereum_usdt */
                provider_id: string;
                /** @example ETHEREUM */
                network: string;
                /** @example USDT */
                currency: string;
                /** @example 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed */
                address: string;
                /**
                 * @description What to send, in `currency`: the refund's USD value at its rates, rounded DOWN to the coin's decimals (never more than the refund is worth)
                 * @example 10.000000000000000000000000000000
                 */
                amount: string;
                /**
                 * @description Payment request your wallet opens (EIP-681 on EVM chains, BIP21 on UTXO chains; null on Tron, which has no payment-URI standard: send `amount` to `address`; in test mode without a rail a plain <network>:<address>?amount=<coin>)
                 * @example ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=10000000
                 */
                uri: string | null;
            } | null;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        ClaimRefundRequestDto: {
            /**
             * @description One of the `methods` of GET /refund_claims/{token}
             * @example prov_ethereum_usdt
             */
            provider_id: string;
            /**
             * @description Where to send the refund, checked for the provider's network: EIP-55 checksum on EVM chains; bech32/bech32m, base58check or cashaddr on UTXO chains (mainnet in live mode, testnet/regtest in test mode); in test mode also TRON (base58check), XRP Ledger (classic address) and Solana (32-byte key)
             * @example 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed
             */
            address: string;
        };
        SubscriptionResponseDto: {
            /** @example subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01 */
            id: string;
            /**
             * @description ACTIVE; PAST_DUE once a period invoice was voided unpaid (ACTIVE again when a later one is paid); CANCELED
             * @enum {string}
             */
            status: "ACTIVE" | "PAST_DUE" | "CANCELED";
            /** @example product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f */
            product_id: string;
            /** @example schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10 */
            billing_schema_id: string;
            /** @example jane@example.com */
            customer_email: string;
            /** @example Jane Doe */
            customer_name: string | null;
            /** @example 1 */
            quantity: number;
            /**
             * @example {
             *       "plan": "pro"
             *     }
             */
            metadata: {
                [key: string]: string;
            };
            /**
             * @description When the first period started (UTC)
             * @example 2026-11-16 00:00:00
             */
            starts_at: string;
            /** @example 2026-11-16 00:00:00 */
            current_period_start: string;
            /**
             * @description Exclusive
             * @example 2026-12-01 00:00:00
             */
            current_period_end: string;
            /**
             * @description When the next period invoice is issued; null when none will be
             * @example 2026-12-01 00:00:00
             */
            next_invoice_at: string | null;
            /**
             * @description The last period invoice issued (null before the first)
             * @example null
             */
            latest_invoice_id: string | null;
            /** @example false */
            cancel_at_period_end: boolean;
            /** @example null */
            canceled_at: string | null;
            /** @example 2026-11-16 00:00:00 */
            created_at: string;
            /** @example 2026-11-16 00:00:00 */
            updated_at: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        CreateSubscriptionRequestDto: {
            /**
             * @description An active product version of the caller
             * @example product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f
             */
            product_id: string;
            /**
             * @description A RECURRING billing schema of that product (else 400 billing_schema_id)
             * @example schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10
             */
            billing_schema_id: string;
            /**
             * @description Who is billed; every period invoice carries it
             * @example jane@example.com
             */
            customer_email: string;
            /** @example Jane Doe */
            customer_name?: string;
            /**
             * @description Seats: the base price is charged this many times
             * @default 1
             * @example 1
             */
            quantity?: number;
            /**
             * @description When the first period starts (YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601); default now (the test clock's now in test mode). At most 24 hours in the past.
             * @example 2026-12-01 00:00:00
             */
            starts_at?: string;
            /**
             * @description String keys to string values; at most 50 keys, keys up to 40 and values up to 500 characters
             * @example {
             *       "order_id": "1234"
             *     }
             */
            metadata?: {
                [key: string]: string;
            };
        };
        SubscriptionListDto: {
            items: components["schemas"]["SubscriptionResponseDto"][];
            /** @example 1 */
            total: number;
            /** @example 20 */
            limit: number;
            /** @example 0 */
            offset: number;
            /** @example false */
            has_more: boolean;
        };
        UpcomingLineDto: {
            /** @enum {string} */
            type: "BASE" | "USAGE";
            /**
             * @description What the line charges, in words (the invoice item's description once issued): the plan (product and billing schema names), the quantity or the metric and its exact usage, and the period, UTC
             * @example Acme API, Pro monthly: API calls, 1,500 units, 2026-11-16 00:00:00 to 2026-12-01 00:00:00 UTC
             */
            description: string;
            /** @example api_calls */
            metric_key: string | null;
            /**
             * @description BASE: the quantity; USAGE: the aggregated usage
             * @example 1500.000000000000000000000000000000
             */
            quantity: string;
            /** @example 1.150000000000000000000000000000 */
            amount: string;
            /** @example 2026-11-16 00:00:00 */
            period_start: string;
            /** @example 2026-12-01 00:00:00 */
            period_end: string;
        };
        UpcomingInvoiceDto: {
            /** @example subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01 */
            subscription_id: string;
            /** @example 2026-11-16 00:00:00 */
            period_start: string;
            /** @example 2026-12-01 00:00:00 */
            period_end: string;
            /**
             * @description When the scheduler issues it
             * @example 2026-12-01 00:00:00
             */
            invoice_at: string;
            /** @example USD */
            currency: string;
            lines: components["schemas"]["UpcomingLineDto"][];
            /**
             * @description Sum of the lines, in the schema's currency
             * @example 6.150000000000000000000000000000
             */
            total: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        CancelSubscriptionRequestDto: {
            /**
             * @description true: stays ACTIVE until the current period ends, then CANCELED (ARREARS still bills that period); false: CANCELED now, nothing more billed
             * @default false
             */
            at_period_end?: boolean;
        };
        UsageEventResponseDto: {
            /** @example evt_2026_11_27_000123 */
            id: string;
            /** @example subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01 */
            subscription_id: string;
            /** @example api_calls */
            metric_key: string;
            /** @example 1.000000000000000000000000000000 */
            value: string;
            /** @example null */
            unique_key: string | null;
            /** @example 2026-11-27 10:15:00 */
            timestamp: string;
            /** @example 2026-11-27 10:15:01 */
            created_at: string;
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        UsageEventRequestDto: {
            /**
             * @description The caller's unique id of the event: sending it again records nothing (200 with the first record)
             * @example evt_2026_11_27_000123
             */
            id: string;
            /** @example subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01 */
            subscription_id: string;
            /**
             * @description A metric_key of the subscription's billing schema
             * @example api_calls
             */
            metric_key: string;
            /**
             * @description The measured value (default 1); COUNT ignores it, UNIQUE_COUNT counts distinct unique_key (or values)
             * @example 1
             */
            value?: string | number;
            /**
             * @description What UNIQUE_COUNT counts distinct values of (e.g. a user id); without it, the value
             * @example user_42
             */
            unique_key?: string;
            /**
             * @description When it happened (YYYY-MM-DD HH:MM:SS (UTC) or ISO 8601); default now. Not before the subscription starts.
             * @example 2026-11-27 10:15:00
             */
            timestamp?: string;
        };
        UsageBatchResponseDto: {
            /**
             * @description Events recorded by this request
             * @example 1
             */
            created: number;
            /**
             * @description Events whose id was recorded before (left as first recorded)
             * @example 0
             */
            duplicates: number;
            /** @description Each event as recorded, in the order sent */
            items: components["schemas"]["UsageEventResponseDto"][];
        };
        /** @description Only the fields listed here are accepted: any other is refused with 400 validation_failed, named in validator. */
        UsageBatchRequestDto: {
            /** @description 1 to 100 events, recorded together or not at all */
            events: components["schemas"]["UsageEventRequestDto"][];
        };
        AuditEntryDto: {
            /** @example audit_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00 */
            id: string;
            /**
             * @description Who acted: a console member or an API key
             * @example member
             * @enum {string}
             */
            actor_type: "member" | "key";
            /**
             * @description The member id, or the key id
             * @example member_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01
             */
            actor_id: string;
            /**
             * @description What was done
             * @example api_key.create
             */
            action: string;
            /**
             * @description The object acted on
             * @example key_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e02
             */
            target: string | null;
            /**
             * @description The mode acted in; null for organization-wide actions (members, sign-in)
             * @example test
             * @enum {string|null}
             */
            mode: "test" | "live" | null;
            /**
             * @description The client address it came from
             * @example 203.0.113.7
             */
            ip: string | null;
            /** @example 2026-11-28 12:00:00 */
            created_at: string;
        };
        AuditLogPageDto: {
            items: components["schemas"]["AuditEntryDto"][];
            /** @example false */
            has_more: boolean;
            /**
             * @description Pass as starting_after for the next page
             * @example null
             */
            next_starting_after?: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    HealthController_live: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "status": "ok"
                     *       },
                     *       "error": null,
                     *       "message": "Success",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
        };
    };
    HealthController_ready: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "status": "ok",
                     *         "info": {
                     *           "database": {
                     *             "status": "up"
                     *           }
                     *         }
                     *       },
                     *       "error": null,
                     *       "message": "Success",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: {
                            [key: string]: unknown;
                        };
                    };
                };
            };
            /** @description Unavailable for now, retry shortly: the database is unreachable (service_unavailable), or, where prices are locked in (live mode, live rate sources), a rate they need is older than RATES_MAX_AGE_SECONDS (rates_unavailable; nothing was stored; Retry-After gives the seconds until the rate sources are asked again) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    AuthController_debugToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "organization_name": "Acme",
                     *         "mode": "test",
                     *         "key_prefix": "sk_test_Ab12Cd",
                     *         "read_only": false,
                     *         "created_at": "2026-11-21 10:00:00"
                     *       },
                     *       "error": null,
                     *       "message": "Success",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["DebugTokenDto"];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    AdminController_createOrganization: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateOrganizationRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 201,
                     *       "data": {
                     *         "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "name": "Acme",
                     *         "test_key": "sk_test_4eC39HqLyjWDarjtT1zdp7dcQ0x8mNbV2rLs9aPk",
                     *         "live_key": "sk_live_9hF2kLmN3pQrS5tUvWxYz1A2b3C4d5E6f7G8h9J0"
                     *       },
                     *       "error": null,
                     *       "message": "Organization created",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["CreatedOrganizationDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    AdminController_listKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": [
                     *         {
                     *           "id": "key_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11",
                     *           "prefix": "sk_test_Ab12Cd",
                     *           "mode": "test",
                     *           "read_only": false,
                     *           "created_at": "2026-11-21 10:00:00",
                     *           "revoked_at": null,
                     *           "name": "Shop backend",
                     *           "expires_at": null,
                     *           "rolled_to": null,
                     *           "last_used_at": "2026-11-21 10:05:00"
                     *         }
                     *       ],
                     *       "error": null,
                     *       "message": "Success",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["ApiKeyDto"][];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    AdminController_createKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateApiKeyRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 201,
                     *       "data": {
                     *         "id": "key_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11",
                     *         "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "mode": "test",
                     *         "read_only": true,
                     *         "prefix": "sk_test_Ab12Cd",
                     *         "key": "sk_test_Ab12CdEf34GhIj56KlMn78OpQr90StUvWxYz12",
                     *         "name": "",
                     *         "created_at": "2026-11-21 10:00:00"
                     *       },
                     *       "error": null,
                     *       "message": "API key created",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["IssuedKeyDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    AdminController_revoke: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RevokeApiKeyRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "revoked": [
                     *           {
                     *             "id": "key_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11",
                     *             "prefix": "sk_test_Ab12Cd",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f"
                     *           }
                     *         ]
                     *       },
                     *       "error": null,
                     *       "message": "API key revoked",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["RevokedKeysDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    ProductsController_list: {
        parameters: {
            query?: {
                /** @description Maximum number of entries returned (default 20, at most 100) */
                limit?: number;
                /** @description Number of entries skipped (default 0) */
                offset?: number;
                /** @description Also list inactive (superseded) versions */
                include_inactive?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": [
                     *         {
                     *           "id": "product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b",
                     *           "version_group_id": "product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a00",
                     *           "is_active": true,
                     *           "name": "Pro plan",
                     *           "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *           "description": "Everything in Basic, plus API access",
                     *           "image_id": null,
                     *           "image": null,
                     *           "metadata": {
                     *             "tier": "pro"
                     *           },
                     *           "schemas": [
                     *             {
                     *               "id": "schema_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c",
                     *               "version_group_id": "schema_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a01",
                     *               "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *               "product_id": "product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b",
                     *               "is_active": true,
                     *               "name": "Monthly",
                     *               "description": "Billed monthly in arrears",
                     *               "type": "RECURRING",
                     *               "currency": "USD",
                     *               "base_price": "100.000000000000000000000000000000",
                     *               "interval_type": "MONTH",
                     *               "interval_count": 1,
                     *               "payment_type": "ARREARS",
                     *               "renew_type": "CALENDAR",
                     *               "billing_type": "FULL",
                     *               "configurations": [
                     *                 {
                     *                   "id": "config_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5d",
                     *                   "version_group_id": "config_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a02",
                     *                   "is_active": true,
                     *                   "schema_id": "schema_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c",
                     *                   "starts_at": "0.000000000000000000000000000000",
                     *                   "ends_at": null,
                     *                   "price_per_unit": "0.010000000000000000000000000000",
                     *                   "metric_id": "metric_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a60",
                     *                   "metric": {
                     *                     "id": "metric_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a60",
                     *                     "metric_key": "api_calls",
                     *                     "name": "API calls",
                     *                     "aggregation_type": "SUM"
                     *                   },
                     *                   "created_at": "2026-11-21 10:00:00",
                     *                   "updated_at": null
                     *                 }
                     *               ],
                     *               "created_at": "2026-11-21 10:00:00",
                     *               "updated_at": null
                     *             }
                     *           ],
                     *           "created_at": "2026-11-21 10:00:00",
                     *           "updated_at": null
                     *         }
                     *       ],
                     *       "error": null,
                     *       "message": "Products retrieved",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["ProductResponseDto"][];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    ProductsController_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable characters. A retry with the same key and body returns the first response (header Idempotent-Replayed: true) instead of creating again; the same key with another body is 400; while the first request runs, 409 (idempotency_conflict); if the request was carried out but its answer was not stored (the service stopped, or it failed after committing its changes), 409 (idempotency_answer_lost). A request that failed before changing anything is not kept and may be retried with the same key; a retry takes over a claim that has committed nothing for two minutes, and the request it belonged to, if still running, is then refused with 409 (idempotency_conflict) and keeps nothing. Kept 24 hours. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProductRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b"
                     *       },
                     *       "error": null,
                     *       "message": "Product created",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["ProductIdDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    ProductsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Product id (any version) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b",
                     *         "version_group_id": "product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a00",
                     *         "is_active": 1,
                     *         "name": "Pro plan",
                     *         "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "description": "Everything in Basic, plus API access",
                     *         "image_id": null,
                     *         "image": null,
                     *         "metadata": {
                     *           "tier": "pro"
                     *         },
                     *         "schemas": [
                     *           {
                     *             "id": "schema_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c",
                     *             "version_group_id": "schema_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a01",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "product_id": "product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b",
                     *             "is_active": 1,
                     *             "name": "Monthly",
                     *             "description": "Billed monthly in arrears",
                     *             "type": "RECURRING",
                     *             "currency": "USD",
                     *             "base_price": "100.000000000000000000000000000000",
                     *             "interval_type": "MONTH",
                     *             "interval_count": 1,
                     *             "payment_type": "ARREARS",
                     *             "renew_type": "CALENDAR",
                     *             "billing_type": "FULL",
                     *             "configurations": [
                     *               {
                     *                 "id": "config_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5d",
                     *                 "version_group_id": "config_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a02",
                     *                 "is_active": 1,
                     *                 "schema_id": "schema_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5c",
                     *                 "starts_at": "0.000000000000000000000000000000",
                     *                 "ends_at": null,
                     *                 "price_per_unit": "0.010000000000000000000000000000",
                     *                 "metric_id": "metric_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a60",
                     *                 "metric": {
                     *                   "id": "metric_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a60",
                     *                   "metric_key": "api_calls",
                     *                   "name": "API calls",
                     *                   "aggregation_type": "SUM"
                     *                 },
                     *                 "created_at": "2026-11-21 10:00:00",
                     *                 "updated_at": null
                     *               }
                     *             ],
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "updated_at": null
                     *           }
                     *         ],
                     *         "created_at": "2026-11-21 10:00:00",
                     *         "updated_at": null
                     *       },
                     *       "error": null,
                     *       "message": "Product retrieved",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["ProductResponseDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    ProductsController_replace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Id of the active product version */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProductRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "product_0193a1b2-3c4d-7e5f-8a9b-0c1d2e3f4a5b"
                     *       },
                     *       "error": null,
                     *       "message": "Product updated",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["ProductIdDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    QuotesController_quote: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QuoteRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "currency": "USD",
                     *         "exchange_rate_timestamp": "2026-11-20 00:00:00",
                     *         "total": {
                     *           "currency": "USD",
                     *           "price": "115.870000000000000000000000000000",
                     *           "price_usd": "115.870000000000000000000000000000"
                     *         },
                     *         "items": [
                     *           {
                     *             "item": {
                     *               "type": "PAYMENT_INTENT",
                     *               "price": "100.000000000000000000000000000000",
                     *               "currency": "EUR"
                     *             },
                     *             "calculations": [
                     *               {
                     *                 "idx": 0,
                     *                 "currency": "EUR",
                     *                 "calculation_type": "PAYMENT_INTENT",
                     *                 "title": "Payment intent",
                     *                 "initial_price": "100.000000000000000000000000000000",
                     *                 "price": "100.000000000000000000000000000000",
                     *                 "price_delta": "0.000000000000000000000000000000",
                     *                 "initial_price_orig": "100.000000000000000000000000000000",
                     *                 "price_orig": "100.000000000000000000000000000000",
                     *                 "price_delta_orig": "0.000000000000000000000000000000",
                     *                 "initial_price_usd": "115.870000000000000000000000000000",
                     *                 "price_usd": "115.870000000000000000000000000000",
                     *                 "price_delta_usd": "0.000000000000000000000000000000",
                     *                 "details": {
                     *                   "payment_intent_id": null,
                     *                   "currency": "EUR",
                     *                   "price": "100.000000000000000000000000000000",
                     *                   "quantity": 1
                     *                 }
                     *               },
                     *               {
                     *                 "idx": 1,
                     *                 "currency": "USD",
                     *                 "calculation_type": "CURRENCY_CHANGE",
                     *                 "title": "Currency change EUR to USD",
                     *                 "initial_price": "100.000000000000000000000000000000",
                     *                 "price": "115.870000000000000000000000000000",
                     *                 "price_delta": "15.870000000000000000000000000000",
                     *                 "initial_price_orig": "100.000000000000000000000000000000",
                     *                 "price_orig": "100.000000000000000000000000000000",
                     *                 "price_delta_orig": "0.000000000000000000000000000000",
                     *                 "initial_price_usd": "115.870000000000000000000000000000",
                     *                 "price_usd": "115.870000000000000000000000000000",
                     *                 "price_delta_usd": "0.000000000000000000000000000000",
                     *                 "details": {
                     *                   "from": "EUR",
                     *                   "to": "USD",
                     *                   "from_rate_usd": "1.158700000000000000000000000000",
                     *                   "to_rate_usd": "1.000000000000000000000000000000"
                     *                 }
                     *               }
                     *             ],
                     *             "total": {
                     *               "currency": "USD",
                     *               "currency_original": "EUR",
                     *               "price": "115.870000000000000000000000000000",
                     *               "price_usd": "115.870000000000000000000000000000",
                     *               "price_orig": "100.000000000000000000000000000000"
                     *             }
                     *           },
                     *           {
                     *             "item": {
                     *               "type": "TOTAL",
                     *               "currency": "USD",
                     *               "status": "INCLUDED"
                     *             },
                     *             "calculations": [
                     *               {
                     *                 "idx": 0,
                     *                 "currency": "USD",
                     *                 "calculation_type": "TOTAL",
                     *                 "title": "Total",
                     *                 "initial_price": "0.000000000000000000000000000000",
                     *                 "price": "115.870000000000000000000000000000",
                     *                 "price_delta": "115.870000000000000000000000000000",
                     *                 "initial_price_orig": "0.000000000000000000000000000000",
                     *                 "price_orig": "115.870000000000000000000000000000",
                     *                 "price_delta_orig": "115.870000000000000000000000000000",
                     *                 "initial_price_usd": "0.000000000000000000000000000000",
                     *                 "price_usd": "115.870000000000000000000000000000",
                     *                 "price_delta_usd": "115.870000000000000000000000000000",
                     *                 "details": []
                     *               }
                     *             ]
                     *           },
                     *           {
                     *             "item": {
                     *               "type": "TOTAL_USD",
                     *               "currency": "USD",
                     *               "status": "INCLUDED"
                     *             },
                     *             "calculations": [
                     *               {
                     *                 "idx": 0,
                     *                 "currency": "USD",
                     *                 "calculation_type": "TOTAL_USD",
                     *                 "title": "Total in USD",
                     *                 "initial_price": "0.000000000000000000000000000000",
                     *                 "price": "115.870000000000000000000000000000",
                     *                 "price_delta": "115.870000000000000000000000000000",
                     *                 "details": []
                     *               }
                     *             ]
                     *           }
                     *         ]
                     *       },
                     *       "error": null,
                     *       "message": "Quote calculated",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: {
                            currency?: string;
                            /** @example 2026-11-20 00:00:00 */
                            exchange_rate_timestamp?: string;
                            total?: {
                                currency?: string;
                                /** @example 100.000000000000000000000000000000 */
                                price?: string;
                                /** @example 100.000000000000000000000000000000 */
                                price_usd?: string;
                            };
                            items?: {
                                /** @description The echoed item; TOTAL and TOTAL_USD entries carry {type, currency, status} */
                                item?: {
                                    [key: string]: unknown;
                                };
                                calculations?: {
                                    idx?: number;
                                    currency?: string;
                                    /** @enum {string} */
                                    calculation_type?: "PRODUCT" | "PAYMENT_INTENT" | "CURRENCY_CHANGE" | "TOTAL" | "TOTAL_USD";
                                    title?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    initial_price?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    price?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    price_delta?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    initial_price_orig?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    price_orig?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    price_delta_orig?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    initial_price_usd?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    price_usd?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    price_delta_usd?: string;
                                    details?: {
                                        [key: string]: unknown;
                                    } | unknown[];
                                }[];
                                total?: {
                                    currency?: string;
                                    currency_original?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    price?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    price_usd?: string;
                                    /** @example 100.000000000000000000000000000000 */
                                    price_orig?: string;
                                };
                            }[];
                        };
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Unavailable for now, retry shortly: the database is unreachable (service_unavailable), or, where prices are locked in (live mode, live rate sources), a rate they need is older than RATES_MAX_AGE_SECONDS (rates_unavailable; nothing was stored; Retry-After gives the seconds until the rate sources are asked again) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    FilesController_upload: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable characters. A retry with the same key and body returns the first response (header Idempotent-Replayed: true) instead of creating again; the same key with another body is 400; while the first request runs, 409 (idempotency_conflict); if the request was carried out but its answer was not stored (the service stopped, or it failed after committing its changes), 409 (idempotency_answer_lost). A request that failed before changing anything is not kept and may be retried with the same key; a retry takes over a claim that has committed nothing for two minutes, and the request it belonged to, if still running, is then refused with 409 (idempotency_conflict) and keeps nothing. Kept 24 hours. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": {
                    /**
                     * Format: binary
                     * @description The content. Its type is detected from its bytes, not from the declared Content-Type.
                     */
                    file: string;
                    /**
                     * @description Display name; defaults to the file part's filename
                     * @example logo.png
                     */
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "url": "https://api.example.com/files/file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f/content"
                     *       },
                     *       "error": null,
                     *       "message": "File uploaded",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["UploadedFileDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    FilesController_list: {
        parameters: {
            query?: {
                /** @description Maximum number of entries returned (default 20, at most 100) */
                limit?: number;
                /** @description Number of entries skipped (default 0) */
                offset?: number;
                /** @description Case-insensitive substring of the name */
                search?: string;
                type?: "image" | "video" | "audio" | "document" | "archive" | "general";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "name": "logo.png",
                     *             "url": "https://api.example.com/files/file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f/content",
                     *             "type": "image",
                     *             "mime_type": "image/png",
                     *             "size": 48213,
                     *             "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                     *             "created_at": "2026-11-21 10:00:00"
                     *           }
                     *         ],
                     *         "total": 1,
                     *         "limit": 20,
                     *         "offset": 0,
                     *         "has_more": false
                     *       },
                     *       "error": null,
                     *       "message": "Success",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["FileListDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    FilesController_content: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file's bytes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    FilesController_remove: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "file_01936f0e-7b6a-7c3d-9e4f-5a6b7c8d9e0f"
                     *       },
                     *       "error": null,
                     *       "message": "File deleted",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["DeletedFileDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    InvoicesController_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable characters. A retry with the same key and body returns the first response (header Idempotent-Replayed: true) instead of creating again; the same key with another body is 400; while the first request runs, 409 (idempotency_conflict); if the request was carried out but its answer was not stored (the service stopped, or it failed after committing its changes), 409 (idempotency_answer_lost). A request that failed before changing anything is not kept and may be retried with the same key; a retry takes over a claim that has committed nothing for two minutes, and the request it belonged to, if still running, is then refused with 409 (idempotency_conflict) and keeps nothing. Kept 24 hours. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateInvoiceRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 201,
                     *       "data": {
                     *         "id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00"
                     *       },
                     *       "error": null,
                     *       "message": "Invoice created",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["InvoiceIdDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description A request with the same Idempotency-Key is still in flight */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Unavailable for now, retry shortly: the database is unreachable (service_unavailable), or, where prices are locked in (live mode, live rate sources), a rate they need is older than RATES_MAX_AGE_SECONDS (rates_unavailable; nothing was stored; Retry-After gives the seconds until the rate sources are asked again) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    InvoicesController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ListInvoicesRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "status": "PENDING",
                     *             "substatus": null,
                     *             "currency": "USD",
                     *             "price": "25.500000000000000000000000000000",
                     *             "price_usd": "25.500000000000000000000000000000",
                     *             "refunded_usd": "0.000000000000000000000000000000",
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "updated_at": "2026-11-21 10:00:00",
                     *             "expires_at": "2026-11-21 10:15:00",
                     *             "monitoring_until": "2026-11-22 10:15:00",
                     *             "redirect_url": "https://shop.example.com/thanks",
                     *             "checkout_url": "https://pay.example.com/checkout/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "customer_email": "jane@example.com",
                     *             "metadata": {
                     *               "order_id": "1234"
                     *             }
                     *           }
                     *         ],
                     *         "total": 1,
                     *         "limit": 20,
                     *         "offset": 0,
                     *         "has_more": false
                     *       },
                     *       "error": null,
                     *       "message": "Success",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["InvoiceListDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    InvoicesController_readWithGet: {
        parameters: {
            query?: {
                /** @description Comma-separated or repeated */
                expand?: string;
                /** @description Adds `summary` in this currency */
                currency?: components["schemas"]["Currency"];
            };
            header?: never;
            path: {
                /** @description Invoice id (invoice_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "status": "PENDING",
                     *         "substatus": null,
                     *         "currency": "USD",
                     *         "price": "25.500000000000000000000000000000",
                     *         "price_usd": "25.500000000000000000000000000000",
                     *         "refunded_usd": "0.000000000000000000000000000000",
                     *         "created_at": "2026-11-21 10:00:00",
                     *         "updated_at": "2026-11-21 10:00:00",
                     *         "expires_at": "2026-11-21 10:15:00",
                     *         "monitoring_until": "2026-11-22 10:15:00",
                     *         "redirect_url": "https://shop.example.com/thanks",
                     *         "checkout_url": "https://pay.example.com/checkout/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "customer_email": "jane@example.com",
                     *         "metadata": {
                     *           "order_id": "1234"
                     *         },
                     *         "items": [
                     *           {
                     *             "id": "invoice_item_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "type": "PAYMENT_INTENT",
                     *             "currency": "USD",
                     *             "product_id": null,
                     *             "billing_schema_id": null,
                     *             "payment_intent_id": "pi_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e02",
                     *             "price": "25.500000000000000000000000000000",
                     *             "quantity": 1,
                     *             "status": "INCLUDED",
                     *             "exclude_reason": null,
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "updated_at": "2026-11-21 10:00:00"
                     *           }
                     *         ],
                     *         "calculations": [
                     *           {
                     *             "id": "invoice_calc_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e03",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "invoice_item_id": "invoice_item_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *             "title": "Payment intent",
                     *             "calculation_type": "PAYMENT_INTENT",
                     *             "idx": 0,
                     *             "currency": "USD",
                     *             "initial_price": "25.500000000000000000000000000000",
                     *             "price_delta": "0.000000000000000000000000000000",
                     *             "price": "25.500000000000000000000000000000",
                     *             "details": {
                     *               "payment_intent_id": "pi_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e02",
                     *               "currency": "USD",
                     *               "price": "25.500000000000000000000000000000",
                     *               "quantity": 1
                     *             },
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "updated_at": "2026-11-21 10:00:00"
                     *           },
                     *           {
                     *             "id": "invoice_calc_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e04",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "invoice_item_id": null,
                     *             "title": "Total",
                     *             "calculation_type": "TOTAL",
                     *             "idx": 0,
                     *             "currency": "USD",
                     *             "initial_price": "0.000000000000000000000000000000",
                     *             "price_delta": "25.500000000000000000000000000000",
                     *             "price": "25.500000000000000000000000000000",
                     *             "details": [],
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "updated_at": "2026-11-21 10:00:00"
                     *           },
                     *           {
                     *             "id": "invoice_calc_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e05",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "invoice_item_id": null,
                     *             "title": "Total (USD)",
                     *             "calculation_type": "TOTAL_USD",
                     *             "idx": 0,
                     *             "currency": "USD",
                     *             "initial_price": "0.000000000000000000000000000000",
                     *             "price_delta": "25.500000000000000000000000000000",
                     *             "price": "25.500000000000000000000000000000",
                     *             "details": [],
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "updated_at": "2026-11-21 10:00:00"
                     *           }
                     *         ],
                     *         "organization": {
                     *           "name": "Acme",
                     *           "image_url": null
                     *         },
                     *         "payments": []
                     *       },
                     *       "error": null,
                     *       "message": "Invoice",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["InvoiceDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    InvoicesController_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Invoice id (invoice_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateInvoiceRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "message": "Invoice status changed to VOIDED"
                     *       },
                     *       "error": null,
                     *       "message": "Invoice status changed to VOIDED",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["InvoiceUpdatedDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Too many requests; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Unavailable for now, retry shortly: the database is unreachable (service_unavailable), or, where prices are locked in (live mode, live rate sources), a rate they need is older than RATES_MAX_AGE_SECONDS (rates_unavailable; nothing was stored; Retry-After gives the seconds until the rate sources are asked again) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    InvoicesController_read: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Invoice id (invoice_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["GetInvoiceRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "status": "PENDING",
                     *         "substatus": null,
                     *         "currency": "USD",
                     *         "price": "25.500000000000000000000000000000",
                     *         "price_usd": "25.500000000000000000000000000000",
                     *         "refunded_usd": "0.000000000000000000000000000000",
                     *         "created_at": "2026-11-21 10:00:00",
                     *         "updated_at": "2026-11-21 10:00:00",
                     *         "expires_at": "2026-11-21 10:15:00",
                     *         "monitoring_until": "2026-11-22 10:15:00",
                     *         "redirect_url": "https://shop.example.com/thanks",
                     *         "checkout_url": "https://pay.example.com/checkout/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "customer_email": "jane@example.com",
                     *         "metadata": {
                     *           "order_id": "1234"
                     *         },
                     *         "items": [
                     *           {
                     *             "id": "invoice_item_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "type": "PAYMENT_INTENT",
                     *             "currency": "USD",
                     *             "product_id": null,
                     *             "billing_schema_id": null,
                     *             "payment_intent_id": "pi_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e02",
                     *             "price": "25.500000000000000000000000000000",
                     *             "quantity": 1,
                     *             "status": "INCLUDED",
                     *             "exclude_reason": null,
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "updated_at": "2026-11-21 10:00:00"
                     *           }
                     *         ],
                     *         "calculations": [
                     *           {
                     *             "id": "invoice_calc_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e03",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "invoice_item_id": "invoice_item_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *             "title": "Payment intent",
                     *             "calculation_type": "PAYMENT_INTENT",
                     *             "idx": 0,
                     *             "currency": "USD",
                     *             "initial_price": "25.500000000000000000000000000000",
                     *             "price_delta": "0.000000000000000000000000000000",
                     *             "price": "25.500000000000000000000000000000",
                     *             "details": {
                     *               "payment_intent_id": "pi_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e02",
                     *               "currency": "USD",
                     *               "price": "25.500000000000000000000000000000",
                     *               "quantity": 1
                     *             },
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "updated_at": "2026-11-21 10:00:00"
                     *           },
                     *           {
                     *             "id": "invoice_calc_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e04",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "invoice_item_id": null,
                     *             "title": "Total",
                     *             "calculation_type": "TOTAL",
                     *             "idx": 0,
                     *             "currency": "USD",
                     *             "initial_price": "0.000000000000000000000000000000",
                     *             "price_delta": "25.500000000000000000000000000000",
                     *             "price": "25.500000000000000000000000000000",
                     *             "details": [],
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "updated_at": "2026-11-21 10:00:00"
                     *           },
                     *           {
                     *             "id": "invoice_calc_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e05",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "invoice_item_id": null,
                     *             "title": "Total (USD)",
                     *             "calculation_type": "TOTAL_USD",
                     *             "idx": 0,
                     *             "currency": "USD",
                     *             "initial_price": "0.000000000000000000000000000000",
                     *             "price_delta": "25.500000000000000000000000000000",
                     *             "price": "25.500000000000000000000000000000",
                     *             "details": [],
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "updated_at": "2026-11-21 10:00:00"
                     *           }
                     *         ],
                     *         "organization": {
                     *           "name": "Acme",
                     *           "image_url": null
                     *         },
                     *         "payments": []
                     *       },
                     *       "error": null,
                     *       "message": "Invoice",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["InvoiceDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    InvoicesController_shortState: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Invoice id (invoice_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success; the envelope status holds the invoice state string (e.g. "PENDING"), not the HTTP code */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "PENDING",
                     *       "data": {
                     *         "id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "status": "PENDING",
                     *         "substatus": null,
                     *         "updated_at": "2026-11-21 10:00:00"
                     *       },
                     *       "error": null,
                     *       "message": "Invoice state",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        /** @enum {string} */
                        status: "PENDING" | "COMPLETED" | "VOIDED" | "PROCESSING" | "WAITING_FOR_CONFIRMATIONS" | "PARTIALLY_PAID";
                        data: components["schemas"]["InvoiceShortStateDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    ProviderAssetsController_image: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: "bitcoin.svg" | "ethereum.svg" | "usdt.svg" | "usdc.svg" | "tron.svg" | "solana.svg" | "polygon.svg" | "bnb.svg" | "litecoin.svg" | "dogecoin.svg" | "bitcoin-cash.svg" | "ripple.svg" | "card.svg";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The SVG image */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example <svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="$"><circle cx="32" cy="32" r="31" fill="#2775ca"/><text x="32" y="33" text-anchor="middle" dominant-baseline="middle" font-family="Helvetica, Arial, sans-serif" font-weight="700" font-size="32" fill="#ffffff">$</text></svg> */
                    "image/svg+xml": string;
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/svg+xml": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    ProvidersController_forInvoice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Invoice id (invoice_...) */
                invoice_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "providers": [
                     *           {
                     *             "id": "prov_ethereum_usdt",
                     *             "provider": "CRYPTO",
                     *             "network": "ETHEREUM",
                     *             "gateway": "USDT",
                     *             "type": "token",
                     *             "filters": [
                     *               "CRYPTO",
                     *               "TOKEN",
                     *               "STABLECOIN",
                     *               "ETHEREUM"
                     *             ],
                     *             "metadata": {
                     *               "decimals": 6,
                     *               "contract_address": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
                     *               "required_confirmations": 12,
                     *               "image_url": "https://pay.example.com/assets/providers/usdt.svg",
                     *               "image_url_network": "https://pay.example.com/assets/providers/ethereum.svg"
                     *             },
                     *             "name": "Tether USD (Ethereum, ERC-20)",
                     *             "currency": "USDT",
                     *             "price": "25.494902000000000000000000000000",
                     *             "has_rail": true
                     *           },
                     *           {
                     *             "id": "prov_bitcoin_bitcoin",
                     *             "provider": "CRYPTO",
                     *             "network": "BITCOIN",
                     *             "gateway": "BITCOIN",
                     *             "type": "native",
                     *             "filters": [
                     *               "CRYPTO",
                     *               "NATIVE",
                     *               "BITCOIN"
                     *             ],
                     *             "metadata": {
                     *               "decimals": 8,
                     *               "contract_address": "",
                     *               "required_confirmations": 2,
                     *               "image_url": "https://pay.example.com/assets/providers/bitcoin.svg",
                     *               "image_url_network": "https://pay.example.com/assets/providers/bitcoin.svg"
                     *             },
                     *             "name": "Bitcoin",
                     *             "currency": "BITCOIN",
                     *             "price": "0.000279460000000000000000000000",
                     *             "has_rail": false
                     *           }
                     *         ],
                     *         "exchange_rate_timestamp": "2026-11-20 00:00:00"
                     *       },
                     *       "error": null,
                     *       "message": "Providers",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["InvoiceProvidersDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    PaymentsController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ListPaymentsRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01",
                     *             "idempotency_key": "ethereum:0x77756d316c6e7514f883aa0c9900a15fac019353b12bf7cf3ce9785595e77807:0",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "provider_id": "prov_ethereum_usdt",
                     *             "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "tx_hash": "0x77756d316c6e7514f883aa0c9900a15fac019353b12bf7cf3ce9785595e77807",
                     *             "currency": "USDT",
                     *             "price": "25.500000000000000000000000000000",
                     *             "price_usd": "25.505100000000000000000000000000",
                     *             "status": "COMPLETED",
                     *             "confirmations": 12,
                     *             "required_confirmations": 12,
                     *             "created_at": "2026-11-21 10:05:00",
                     *             "updated_at": "2026-11-21 10:07:12",
                     *             "happened_at": "2026-11-21 10:04:58",
                     *             "provider": {
                     *               "id": "prov_ethereum_usdt",
                     *               "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *               "name": "Tether USD (Ethereum, ERC-20)",
                     *               "slug": "ethereum-usdt",
                     *               "type": "CRYPTOCURRENCY",
                     *               "enabled": true,
                     *               "network": "ETHEREUM",
                     *               "gateway": "USDT",
                     *               "currency": "USDT",
                     *               "decimals": 6,
                     *               "contract_address": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
                     *               "required_confirmations": 12,
                     *               "created_at": "2026-11-21 09:00:00",
                     *               "updated_at": "2026-11-21 09:00:00"
                     *             }
                     *           }
                     *         ],
                     *         "total": 1,
                     *         "limit": 20,
                     *         "offset": 0,
                     *         "has_more": false
                     *       },
                     *       "error": null,
                     *       "message": "Payments",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["PaymentListDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    PaymentsController_read: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment id (payment_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["GetPaymentRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01",
                     *         "idempotency_key": "ethereum:0x77756d316c6e7514f883aa0c9900a15fac019353b12bf7cf3ce9785595e77807:0",
                     *         "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "provider_id": "prov_ethereum_usdt",
                     *         "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "tx_hash": "0x77756d316c6e7514f883aa0c9900a15fac019353b12bf7cf3ce9785595e77807",
                     *         "currency": "USDT",
                     *         "price": "25.500000000000000000000000000000",
                     *         "price_usd": "25.505100000000000000000000000000",
                     *         "status": "COMPLETED",
                     *         "confirmations": 12,
                     *         "required_confirmations": 12,
                     *         "created_at": "2026-11-21 10:05:00",
                     *         "updated_at": "2026-11-21 10:07:12",
                     *         "happened_at": "2026-11-21 10:04:58",
                     *         "provider": {
                     *           "id": "prov_ethereum_usdt",
                     *           "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *           "name": "Tether USD (Ethereum, ERC-20)",
                     *           "slug": "ethereum-usdt",
                     *           "type": "CRYPTOCURRENCY",
                     *           "enabled": true,
                     *           "network": "ETHEREUM",
                     *           "gateway": "USDT",
                     *           "currency": "USDT",
                     *           "decimals": 6,
                     *           "contract_address": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
                     *           "required_confirmations": 12,
                     *           "created_at": "2026-11-21 09:00:00",
                     *           "updated_at": "2026-11-21 09:00:00"
                     *         }
                     *       },
                     *       "error": null,
                     *       "message": "Payment",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["PaymentDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    TestHelpersController_simulate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable characters. A retry with the same key and body returns the first response (header Idempotent-Replayed: true) instead of creating again; the same key with another body is 400; while the first request runs, 409 (idempotency_conflict); if the request was carried out but its answer was not stored (the service stopped, or it failed after committing its changes), 409 (idempotency_answer_lost). A request that failed before changing anything is not kept and may be retried with the same key; a retry takes over a claim that has committed nothing for two minutes, and the request it belonged to, if still running, is then refused with 409 (idempotency_conflict) and keeps nothing. Kept 24 hours. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SimulatePaymentRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 201,
                     *       "data": {
                     *         "id": "payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01",
                     *         "status": "PENDING",
                     *         "created": true,
                     *         "confirmations": 3,
                     *         "required_confirmations": 12,
                     *         "invoice": {
                     *           "id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *           "status": "WAITING_FOR_CONFIRMATIONS",
                     *           "substatus": null,
                     *           "previous_status": "PENDING"
                     *         }
                     *       },
                     *       "error": null,
                     *       "message": "Payment recorded",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["SimulatedPaymentDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description A request with the same Idempotency-Key is still in flight */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    TestHelpersController_status: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment id (payment_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SimulatePaymentStatusRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01",
                     *         "status": "COMPLETED",
                     *         "created": false,
                     *         "confirmations": 3,
                     *         "required_confirmations": 12,
                     *         "invoice": {
                     *           "id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *           "status": "COMPLETED",
                     *           "substatus": null,
                     *           "previous_status": "WAITING_FOR_CONFIRMATIONS"
                     *         }
                     *       },
                     *       "error": null,
                     *       "message": "Payment status recorded",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["SimulatedPaymentDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    TestHelpersController_confirmations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Payment id (payment_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SimulatePaymentConfirmationsRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01",
                     *         "status": "COMPLETED",
                     *         "created": false,
                     *         "confirmations": 12,
                     *         "required_confirmations": 12,
                     *         "invoice": {
                     *           "id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *           "status": "COMPLETED",
                     *           "substatus": null,
                     *           "previous_status": "WAITING_FOR_CONFIRMATIONS"
                     *         }
                     *       },
                     *       "error": null,
                     *       "message": "Payment confirmations recorded",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["SimulatedPaymentDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    TestPaymentController_pay: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Invoice id (invoice_...) of a test-mode invoice */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TestPaymentRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 201,
                     *       "data": {
                     *         "id": "payment_01936a5f-1b2c-7d3e-8f40-5a6b7c8d9e01",
                     *         "kind": "exact",
                     *         "provider_id": "prov_card_usd",
                     *         "currency": "USD",
                     *         "price": "19.750000000000000000000000000000",
                     *         "status": "COMPLETED",
                     *         "created": true,
                     *         "invoice": {
                     *           "id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *           "status": "COMPLETED",
                     *           "substatus": null
                     *         }
                     *       },
                     *       "error": null,
                     *       "message": "Test payment recorded",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["TestPaymentDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description A request with the same Idempotency-Key is still in flight */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Too many requests; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    EventsController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ListEventsRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "type": "invoice.updated",
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "mode": "test",
                     *             "data": {
                     *               "object": {
                     *                 "id": "invoice_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11",
                     *                 "status": "WAITING_FOR_CONFIRMATIONS"
                     *               },
                     *               "previous_attributes": {
                     *                 "status": "PENDING"
                     *               }
                     *             }
                     *           }
                     *         ],
                     *         "total": 1,
                     *         "total_exact": true,
                     *         "limit": 20,
                     *         "offset": 0,
                     *         "has_more": false
                     *       },
                     *       "error": null,
                     *       "message": "Events listed",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["EventListDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    EventsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "type": "invoice.updated",
                     *         "created_at": "2026-11-21 10:00:00",
                     *         "organization_id": "org_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "mode": "test",
                     *         "data": {
                     *           "object": {
                     *             "id": "invoice_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e11",
                     *             "status": "WAITING_FOR_CONFIRMATIONS"
                     *           },
                     *           "previous_attributes": {
                     *             "status": "PENDING"
                     *           }
                     *         }
                     *       },
                     *       "error": null,
                     *       "message": "Event found",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["EventDto"];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WebhooksController_list: {
        parameters: {
            query?: {
                /** @description Maximum number of entries returned (default 20, at most 100) */
                limit?: number;
                /** @description Number of entries skipped (default 0) */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "url": "https://merchant.example.com/webhooks",
                     *             "description": "Order fulfilment",
                     *             "event_types": [
                     *               "invoice.completed",
                     *               "payment.created",
                     *               "payment.updated"
                     *             ],
                     *             "enabled": true,
                     *             "disabled_reason": null,
                     *             "consecutive_failures": 0,
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "updated_at": "2026-11-21 10:00:00"
                     *           }
                     *         ],
                     *         "total": 1,
                     *         "limit": 20,
                     *         "offset": 0,
                     *         "has_more": false
                     *       },
                     *       "error": null,
                     *       "message": "Webhook endpoints listed",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["WebhookEndpointListDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WebhooksController_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable characters. A retry with the same key and body returns the first response (header Idempotent-Replayed: true) instead of creating again; the same key with another body is 400; while the first request runs, 409 (idempotency_conflict); if the request was carried out but its answer was not stored (the service stopped, or it failed after committing its changes), 409 (idempotency_answer_lost). A request that failed before changing anything is not kept and may be retried with the same key; a retry takes over a claim that has committed nothing for two minutes, and the request it belonged to, if still running, is then refused with 409 (idempotency_conflict) and keeps nothing. Kept 24 hours. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWebhookRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 201,
                     *       "data": {
                     *         "id": "webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "url": "https://merchant.example.com/webhooks",
                     *         "description": "Order fulfilment",
                     *         "event_types": [
                     *           "invoice.completed",
                     *           "payment.created",
                     *           "payment.updated"
                     *         ],
                     *         "enabled": true,
                     *         "disabled_reason": null,
                     *         "consecutive_failures": 0,
                     *         "created_at": "2026-11-21 10:00:00",
                     *         "updated_at": "2026-11-21 10:00:00",
                     *         "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
                     *       },
                     *       "error": null,
                     *       "message": "Webhook endpoint created",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["WebhookEndpointWithSecretDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WebhooksController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "url": "https://merchant.example.com/webhooks",
                     *         "description": "Order fulfilment",
                     *         "event_types": [
                     *           "invoice.completed",
                     *           "payment.created",
                     *           "payment.updated"
                     *         ],
                     *         "enabled": true,
                     *         "disabled_reason": null,
                     *         "consecutive_failures": 0,
                     *         "created_at": "2026-11-21 10:00:00",
                     *         "updated_at": "2026-11-21 10:00:00"
                     *       },
                     *       "error": null,
                     *       "message": "Webhook endpoint found",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["WebhookEndpointDto"];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WebhooksController_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateWebhookRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "url": "https://merchant.example.com/webhooks",
                     *         "description": "Order fulfilment",
                     *         "event_types": [
                     *           "invoice.completed",
                     *           "payment.created",
                     *           "payment.updated"
                     *         ],
                     *         "enabled": true,
                     *         "disabled_reason": null,
                     *         "consecutive_failures": 0,
                     *         "created_at": "2026-11-21 10:00:00",
                     *         "updated_at": "2026-11-21 10:00:00"
                     *       },
                     *       "error": null,
                     *       "message": "Webhook endpoint updated",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["WebhookEndpointDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WebhooksController_remove: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "deleted": true
                     *       },
                     *       "error": null,
                     *       "message": "Webhook endpoint deleted",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["DeletedWebhookDto"];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WebhooksController_rotate: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable characters. A retry with the same key and body returns the first response (header Idempotent-Replayed: true) instead of creating again; the same key with another body is 400; while the first request runs, 409 (idempotency_conflict); if the request was carried out but its answer was not stored (the service stopped, or it failed after committing its changes), 409 (idempotency_answer_lost). A request that failed before changing anything is not kept and may be retried with the same key; a retry takes over a claim that has committed nothing for two minutes, and the request it belonged to, if still running, is then refused with 409 (idempotency_conflict) and keeps nothing. Kept 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RotateSecretRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "url": "https://merchant.example.com/webhooks",
                     *         "description": "Order fulfilment",
                     *         "event_types": [
                     *           "invoice.completed",
                     *           "payment.created",
                     *           "payment.updated"
                     *         ],
                     *         "enabled": true,
                     *         "disabled_reason": null,
                     *         "consecutive_failures": 0,
                     *         "created_at": "2026-11-21 10:00:00",
                     *         "updated_at": "2026-11-21 10:00:00",
                     *         "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
                     *       },
                     *       "error": null,
                     *       "message": "Signing secret rotated",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["WebhookEndpointWithSecretDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WebhooksController_attempts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ListAttemptsRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "attempt_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "delivery_id": "delivery_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "event_id": "event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "event_type": "invoice.completed",
                     *             "attempt_number": 1,
                     *             "url": "https://merchant.example.com/webhooks",
                     *             "succeeded": false,
                     *             "response_status": 500,
                     *             "response_body": "Internal Server Error",
                     *             "error": "endpoint answered HTTP 500",
                     *             "duration_ms": 84,
                     *             "next_attempt_at": "2026-11-21 10:00:05",
                     *             "created_at": "2026-11-21 10:00:00"
                     *           }
                     *         ],
                     *         "total": 1,
                     *         "total_exact": true,
                     *         "limit": 20,
                     *         "offset": 0,
                     *         "has_more": false
                     *       },
                     *       "error": null,
                     *       "message": "Webhook attempts listed",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["WebhookAttemptListDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WebhooksController_redeliver: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RedeliverRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 202,
                     *       "data": {
                     *         "delivery_id": "delivery_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "endpoint_id": "webhook_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "event_id": "event_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "status": "pending",
                     *         "created_at": "2026-11-21 10:00:00"
                     *       },
                     *       "error": null,
                     *       "message": "Redelivery queued",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["QueuedDeliveryDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    AnalyticsController_dashboard: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DashboardRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "period": "last_7_days",
                     *         "from": "2026-11-15 00:00:00",
                     *         "to": "2026-11-22 00:00:00",
                     *         "payments": {
                     *           "count": 4,
                     *           "completed_count": 3,
                     *           "volume_usd": "250.000000000000000000000000000000",
                     *           "by_status": {
                     *             "PENDING": 1,
                     *             "COMPLETED": 3,
                     *             "FAILED": 0,
                     *             "CANCELLED": 0
                     *           },
                     *           "by_currency": [
                     *             {
                     *               "currency": "USDT",
                     *               "count": 3,
                     *               "volume_usd": "200.000000000000000000000000000000"
                     *             },
                     *             {
                     *               "currency": "USDC",
                     *               "count": 1,
                     *               "volume_usd": "50.000000000000000000000000000000"
                     *             }
                     *           ]
                     *         },
                     *         "invoices": {
                     *           "count": 4,
                     *           "by_status": {
                     *             "PENDING": 1,
                     *             "COMPLETED": 3,
                     *             "VOIDED": 0,
                     *             "PROCESSING": 0,
                     *             "WAITING_FOR_CONFIRMATIONS": 0,
                     *             "PARTIALLY_PAID": 0
                     *           },
                     *           "paid_count": 3,
                     *           "paid_volume_usd": "250.000000000000000000000000000000",
                     *           "average_price_usd": "75.000000000000000000000000000000",
                     *           "conversion_rate": "0.750000000000000000000000000000"
                     *         },
                     *         "providers": [
                     *           {
                     *             "provider_id": "prov_ethereum_usdt",
                     *             "name": "Tether USD (Ethereum, ERC-20)",
                     *             "payments_count": 3,
                     *             "volume_usd": "200.000000000000000000000000000000",
                     *             "share": "0.800000000000000000000000000000"
                     *           },
                     *           {
                     *             "provider_id": "prov_ethereum_usdc",
                     *             "name": "USD Coin (Ethereum, ERC-20)",
                     *             "payments_count": 1,
                     *             "volume_usd": "50.000000000000000000000000000000",
                     *             "share": "0.200000000000000000000000000000"
                     *           }
                     *         ],
                     *         "customers": {
                     *           "unique": 2,
                     *           "new": 1,
                     *           "returning": 1,
                     *           "top": [
                     *             {
                     *               "customer_email": "jane@example.com",
                     *               "invoices_count": 3,
                     *               "paid_volume_usd": "200.000000000000000000000000000000"
                     *             },
                     *             {
                     *               "customer_email": "joe@example.com",
                     *               "invoices_count": 1,
                     *               "paid_volume_usd": "50.000000000000000000000000000000"
                     *             }
                     *           ]
                     *         },
                     *         "series": [
                     *           {
                     *             "date": "2026-11-15",
                     *             "payments_volume_usd": "0.000000000000000000000000000000",
                     *             "invoices_count": 0
                     *           },
                     *           {
                     *             "date": "2026-11-16",
                     *             "payments_volume_usd": "0.000000000000000000000000000000",
                     *             "invoices_count": 0
                     *           },
                     *           {
                     *             "date": "2026-11-17",
                     *             "payments_volume_usd": "0.000000000000000000000000000000",
                     *             "invoices_count": 0
                     *           },
                     *           {
                     *             "date": "2026-11-18",
                     *             "payments_volume_usd": "0.000000000000000000000000000000",
                     *             "invoices_count": 0
                     *           },
                     *           {
                     *             "date": "2026-11-19",
                     *             "payments_volume_usd": "0.000000000000000000000000000000",
                     *             "invoices_count": 0
                     *           },
                     *           {
                     *             "date": "2026-11-20",
                     *             "payments_volume_usd": "0.000000000000000000000000000000",
                     *             "invoices_count": 0
                     *           },
                     *           {
                     *             "date": "2026-11-21",
                     *             "payments_volume_usd": "250.000000000000000000000000000000",
                     *             "invoices_count": 4
                     *           }
                     *         ],
                     *         "refunds": {
                     *           "count": 2,
                     *           "completed_count": 1,
                     *           "refunded_usd": "20.000000000000000000000000000000"
                     *         },
                     *         "net_volume_usd": "230.000000000000000000000000000000",
                     *         "subscriptions": {
                     *           "active_count": 1,
                     *           "past_due_count": 0,
                     *           "canceled_count": 0,
                     *           "mrr_usd": "100.000000000000000000000000000000",
                     *           "mrr_by_currency": [
                     *             {
                     *               "currency": "USD",
                     *               "mrr": "100.000000000000000000000000000000",
                     *               "mrr_usd": "100.000000000000000000000000000000"
                     *             }
                     *           ]
                     *         }
                     *       },
                     *       "error": null,
                     *       "message": "Dashboard",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["DashboardDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    TestClockController_read: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "now": "2026-11-21 10:15:00",
                     *         "now_iso": "2026-11-21T10:15:00.123Z",
                     *         "offset_seconds": 900
                     *       },
                     *       "error": null,
                     *       "message": "Clock",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["ClockStateDto"];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    TestClockController_advance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdvanceClockRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "now": "2026-11-21 10:15:00",
                     *         "now_iso": "2026-11-21T10:15:00.123Z",
                     *         "offset_seconds": 900
                     *       },
                     *       "error": null,
                     *       "message": "Clock moved",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["ClockStateDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WalletsController_list: {
        parameters: {
            query?: {
                /** @description Maximum number of entries returned (default 20, at most 100) */
                limit?: number;
                /** @description Number of entries skipped (default 0) */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "wallet_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "chain_family": "evm",
                     *             "network": null,
                     *             "first_address": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
                     *             "active": true,
                     *             "addresses_issued": 0,
                     *             "unused_gap": 0,
                     *             "created_at": "2026-11-21 10:00:00",
                     *             "replaced_at": null
                     *           }
                     *         ],
                     *         "total": 1,
                     *         "limit": 20,
                     *         "offset": 0,
                     *         "has_more": false
                     *       },
                     *       "error": null,
                     *       "message": "Wallets listed",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["WalletListDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WalletsController_register: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RegisterWalletRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 201,
                     *       "data": {
                     *         "id": "wallet_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "chain_family": "evm",
                     *         "network": null,
                     *         "first_address": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
                     *         "active": true,
                     *         "addresses_issued": 0,
                     *         "unused_gap": 0,
                     *         "created_at": "2026-11-21 10:00:00",
                     *         "replaced_at": null
                     *       },
                     *       "error": null,
                     *       "message": "Wallet registered",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["WalletDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WalletsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "wallet_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "chain_family": "evm",
                     *         "network": null,
                     *         "first_address": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
                     *         "active": true,
                     *         "addresses_issued": 0,
                     *         "unused_gap": 0,
                     *         "created_at": "2026-11-21 10:00:00",
                     *         "replaced_at": null
                     *       },
                     *       "error": null,
                     *       "message": "Wallet found",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["WalletDto"];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    WalletsController_remove: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "wallet_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "deleted": true
                     *       },
                     *       "error": null,
                     *       "message": "Wallet deleted",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["DeletedWalletDto"];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    PaymentAddressController_allocate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Invoice id (invoice_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PaymentAddressRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "provider_id": "prov_ethereum_usdt",
                     *         "network": "ETHEREUM",
                     *         "currency": "USDT",
                     *         "address": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
                     *         "amount": "25.494902000000000000000000000000",
                     *         "decimals": 6,
                     *         "chain_id": 1,
                     *         "contract_address": "0xdAC17F958D2ee523a2206206994597C13D831ec7",
                     *         "reference": null,
                     *         "uri": "ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=25494902",
                     *         "expires_at": "2026-11-21 10:15:00"
                     *       },
                     *       "error": null,
                     *       "message": "Payment address",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["PaymentAddressDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Unavailable for now, retry shortly: the database is unreachable (service_unavailable), or, where prices are locked in (live mode, live rate sources), a rate they need is older than RATES_MAX_AGE_SECONDS (rates_unavailable; nothing was stored; Retry-After gives the seconds until the rate sources are asked again) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    UnmatchedTransfersController_list: {
        parameters: {
            query?: {
                /** @description OPEN: no payment records it yet; RESOLVED: a retry recorded it */
                status?: "OPEN" | "RESOLVED";
                /** @description Cursor pagination: the transfers after this id (the last item of the previous page). 400 when the id is not an unmatched transfer of the caller's organization and mode. */
                starting_after?: string;
                /** @description Maximum number of entries returned (default 20, at most 100) */
                limit?: number;
                /** @description Number of entries skipped (default 0) */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "unmatched_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e11",
                     *             "status": "OPEN",
                     *             "reason_code": "no_known_reference",
                     *             "reason": "The transaction carries no reference of a payment address this service handed out for the wallet (sent by hand, from an exchange, or with another reference), so no invoice is known: it is kept here and not recorded as a payment.",
                     *             "invoice_id": null,
                     *             "provider_id": "prov_solana_usdc",
                     *             "network": "SOLANA",
                     *             "currency": "USDC",
                     *             "amount": "12.345678000000000000000000000000",
                     *             "address": "HXtBm8XZbxaTt41uqaKhwUAa6Z1aPyvJdsZVENiWsetg",
                     *             "tx_hash": "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
                     *             "log_index": null,
                     *             "block_number": 372104517,
                     *             "idempotency_key": "solana:5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW:HXtBm8XZbxaTt41uqaKhwUAa6Z1aPyvJdsZVENiWsetg:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
                     *             "in_doubt": false,
                     *             "attempts": 1,
                     *             "payment_id": null,
                     *             "happened_at": "2026-11-21 10:04:58",
                     *             "created_at": "2026-11-21 10:05:01",
                     *             "updated_at": "2026-11-21 10:05:01",
                     *             "resolved_at": null
                     *           },
                     *           {
                     *             "id": "unmatched_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e10",
                     *             "status": "OPEN",
                     *             "reason_code": "provider_disabled",
                     *             "reason": "Invalid request: provider_id provider prov_ethereum_usdt is disabled for this organization",
                     *             "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "provider_id": "prov_ethereum_usdt",
                     *             "network": "ETHEREUM",
                     *             "currency": "USDT",
                     *             "amount": "25.494902000000000000000000000000",
                     *             "address": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
                     *             "tx_hash": "0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071",
                     *             "log_index": 3,
                     *             "block_number": 21000123,
                     *             "idempotency_key": "ethereum:0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071:3",
                     *             "in_doubt": false,
                     *             "attempts": 1,
                     *             "payment_id": null,
                     *             "happened_at": "2026-11-21 10:04:58",
                     *             "created_at": "2026-11-21 10:05:01",
                     *             "updated_at": "2026-11-21 10:05:01",
                     *             "resolved_at": null
                     *           }
                     *         ],
                     *         "total": 2,
                     *         "limit": 20,
                     *         "offset": 0,
                     *         "has_more": false
                     *       },
                     *       "error": null,
                     *       "message": "Unmatched transfers",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["UnmatchedTransferListDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    UnmatchedTransfersController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Unmatched transfer id (unmatched_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "unmatched_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e10",
                     *         "status": "OPEN",
                     *         "reason_code": "provider_disabled",
                     *         "reason": "Invalid request: provider_id provider prov_ethereum_usdt is disabled for this organization",
                     *         "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "provider_id": "prov_ethereum_usdt",
                     *         "network": "ETHEREUM",
                     *         "currency": "USDT",
                     *         "amount": "25.494902000000000000000000000000",
                     *         "address": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
                     *         "tx_hash": "0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071",
                     *         "log_index": 3,
                     *         "block_number": 21000123,
                     *         "idempotency_key": "ethereum:0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071:3",
                     *         "in_doubt": false,
                     *         "attempts": 1,
                     *         "payment_id": null,
                     *         "happened_at": "2026-11-21 10:04:58",
                     *         "created_at": "2026-11-21 10:05:01",
                     *         "updated_at": "2026-11-21 10:05:01",
                     *         "resolved_at": null
                     *       },
                     *       "error": null,
                     *       "message": "Unmatched transfer",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["UnmatchedTransferDto"];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    UnmatchedTransfersController_retry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Unmatched transfer id (unmatched_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "unmatched_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e10",
                     *         "status": "RESOLVED",
                     *         "reason_code": "provider_disabled",
                     *         "reason": "Invalid request: provider_id provider prov_ethereum_usdt is disabled for this organization",
                     *         "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "provider_id": "prov_ethereum_usdt",
                     *         "network": "ETHEREUM",
                     *         "currency": "USDT",
                     *         "amount": "25.494902000000000000000000000000",
                     *         "address": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
                     *         "tx_hash": "0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071",
                     *         "log_index": 3,
                     *         "block_number": 21000123,
                     *         "idempotency_key": "ethereum:0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071:3",
                     *         "in_doubt": false,
                     *         "attempts": 2,
                     *         "payment_id": "payment_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *         "happened_at": "2026-11-21 10:04:58",
                     *         "created_at": "2026-11-21 10:05:01",
                     *         "updated_at": "2026-11-21 11:30:00",
                     *         "resolved_at": "2026-11-21 11:30:00"
                     *       },
                     *       "error": null,
                     *       "message": "Transfer recorded",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["UnmatchedTransferDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    RefundsController_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable characters. A retry with the same key and body returns the first response (header Idempotent-Replayed: true) instead of creating again; the same key with another body is 400; while the first request runs, 409 (idempotency_conflict); if the request was carried out but its answer was not stored (the service stopped, or it failed after committing its changes), 409 (idempotency_answer_lost). A request that failed before changing anything is not kept and may be retried with the same key; a retry takes over a claim that has committed nothing for two minutes, and the request it belonged to, if still running, is then refused with 409 (idempotency_conflict) and keeps nothing. Kept 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Invoice id (invoice_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CreateRefundRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 201,
                     *       "data": {
                     *         "id": "refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20",
                     *         "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "status": "AWAITING_DESTINATION",
                     *         "amount": "10.000000000000000000000000000000",
                     *         "currency": "USD",
                     *         "amount_usd": "10.000000000000000000000000000000",
                     *         "rate": "invoice",
                     *         "reason": "Order 1234 cancelled",
                     *         "claim_url": "https://pay.example.com/refund_claims/rc_9J4dQeYk1m2c0sVbUxZr7aLpWnTqHf3o",
                     *         "expires_at": "2026-11-28 10:00:00",
                     *         "destination": null,
                     *         "payout": null,
                     *         "created_at": "2026-11-27 10:00:00",
                     *         "updated_at": "2026-11-27 10:00:00"
                     *       },
                     *       "error": null,
                     *       "message": "Refund created",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["RefundDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    RefundsController_list: {
        parameters: {
            query?: {
                /** @description Only this invoice's refunds */
                invoice_id?: string;
                status?: "AWAITING_DESTINATION" | "AWAITING_PAYOUT" | "SENT" | "COMPLETED" | "CANCELED" | "EXPIRED";
                /** @description Cursor: the refunds after this id (the last of the previous page) */
                starting_after?: string;
                /** @description Maximum number of entries returned (default 20, at most 100) */
                limit?: number;
                /** @description Number of entries skipped (default 0) */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20",
                     *             "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *             "status": "AWAITING_DESTINATION",
                     *             "amount": "10.000000000000000000000000000000",
                     *             "currency": "USD",
                     *             "amount_usd": "10.000000000000000000000000000000",
                     *             "rate": "invoice",
                     *             "reason": "Order 1234 cancelled",
                     *             "claim_url": "https://pay.example.com/refund_claims/rc_9J4dQeYk1m2c0sVbUxZr7aLpWnTqHf3o",
                     *             "expires_at": "2026-11-28 10:00:00",
                     *             "destination": null,
                     *             "payout": null,
                     *             "created_at": "2026-11-27 10:00:00",
                     *             "updated_at": "2026-11-27 10:00:00"
                     *           }
                     *         ],
                     *         "total": 1,
                     *         "limit": 20,
                     *         "offset": 0,
                     *         "has_more": false
                     *       },
                     *       "error": null,
                     *       "message": "Refunds",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["RefundListDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    RefundsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Refund id (refund_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20",
                     *         "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "status": "SENT",
                     *         "amount": "10.000000000000000000000000000000",
                     *         "currency": "USD",
                     *         "amount_usd": "10.000000000000000000000000000000",
                     *         "rate": "invoice",
                     *         "reason": "Order 1234 cancelled",
                     *         "claim_url": "https://pay.example.com/refund_claims/rc_9J4dQeYk1m2c0sVbUxZr7aLpWnTqHf3o",
                     *         "expires_at": "2026-11-28 10:00:00",
                     *         "destination": {
                     *           "provider_id": "prov_ethereum_usdt",
                     *           "network": "ETHEREUM",
                     *           "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
                     *         },
                     *         "payout": {
                     *           "provider_id": "prov_ethereum_usdt",
                     *           "network": "ETHEREUM",
                     *           "currency": "USDT",
                     *           "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
                     *           "amount": "10.000000000000000000000000000000",
                     *           "uri": "ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=10000000",
                     *           "tx_hash": "0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071",
                     *           "confirmations": 1,
                     *           "required_confirmations": 12
                     *         },
                     *         "created_at": "2026-11-27 10:00:00",
                     *         "updated_at": "2026-11-27 10:09:00"
                     *       },
                     *       "error": null,
                     *       "message": "Refund",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["RefundDto"];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    RefundsController_cancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Refund id (refund_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20",
                     *         "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "status": "CANCELED",
                     *         "amount": "10.000000000000000000000000000000",
                     *         "currency": "USD",
                     *         "amount_usd": "10.000000000000000000000000000000",
                     *         "rate": "invoice",
                     *         "reason": "Order 1234 cancelled",
                     *         "claim_url": "https://pay.example.com/refund_claims/rc_9J4dQeYk1m2c0sVbUxZr7aLpWnTqHf3o",
                     *         "expires_at": "2026-11-28 10:00:00",
                     *         "destination": null,
                     *         "payout": null,
                     *         "created_at": "2026-11-27 10:00:00",
                     *         "updated_at": "2026-11-27 10:09:00"
                     *       },
                     *       "error": null,
                     *       "message": "Refund canceled",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["RefundDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    RefundsController_sent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Refund id (refund_...) */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReportRefundSentRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20",
                     *         "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "status": "SENT",
                     *         "amount": "10.000000000000000000000000000000",
                     *         "currency": "USD",
                     *         "amount_usd": "10.000000000000000000000000000000",
                     *         "rate": "invoice",
                     *         "reason": "Order 1234 cancelled",
                     *         "claim_url": "https://pay.example.com/refund_claims/rc_9J4dQeYk1m2c0sVbUxZr7aLpWnTqHf3o",
                     *         "expires_at": "2026-11-28 10:00:00",
                     *         "destination": {
                     *           "provider_id": "prov_ethereum_usdt",
                     *           "network": "ETHEREUM",
                     *           "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
                     *         },
                     *         "payout": {
                     *           "provider_id": "prov_ethereum_usdt",
                     *           "network": "ETHEREUM",
                     *           "currency": "USDT",
                     *           "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
                     *           "amount": "10.000000000000000000000000000000",
                     *           "uri": "ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=10000000",
                     *           "tx_hash": "0x8f1e3c2a9b7d4e6f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071",
                     *           "confirmations": 1,
                     *           "required_confirmations": 12
                     *         },
                     *         "created_at": "2026-11-27 10:00:00",
                     *         "updated_at": "2026-11-27 10:09:00"
                     *       },
                     *       "error": null,
                     *       "message": "Refund payout reported",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["RefundDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    RefundTestHelpersController_payout: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable characters. A retry with the same key and body returns the first response (header Idempotent-Replayed: true) instead of creating again; the same key with another body is 400; while the first request runs, 409 (idempotency_conflict); if the request was carried out but its answer was not stored (the service stopped, or it failed after committing its changes), 409 (idempotency_answer_lost). A request that failed before changing anything is not kept and may be retried with the same key; a retry takes over a claim that has committed nothing for two minutes, and the request it belonged to, if still running, is then refused with 409 (idempotency_conflict) and keeps nothing. Kept 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Refund id (refund_...) of a test-mode refund */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SimulateRefundPayoutRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20",
                     *         "invoice_id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *         "status": "COMPLETED",
                     *         "amount": "10.000000000000000000000000000000",
                     *         "currency": "USD",
                     *         "amount_usd": "10.000000000000000000000000000000",
                     *         "rate": "invoice",
                     *         "reason": "Order 1234 cancelled",
                     *         "claim_url": "https://pay.example.com/refund_claims/rc_9J4dQeYk1m2c0sVbUxZr7aLpWnTqHf3o",
                     *         "expires_at": "2026-11-28 10:00:00",
                     *         "destination": {
                     *           "provider_id": "prov_ethereum_usdt",
                     *           "network": "ETHEREUM",
                     *           "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
                     *         },
                     *         "payout": {
                     *           "provider_id": "prov_ethereum_usdt",
                     *           "network": "ETHEREUM",
                     *           "currency": "USDT",
                     *           "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
                     *           "amount": "10.000000000000000000000000000000",
                     *           "uri": "ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=10000000",
                     *           "tx_hash": "simulated:refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20",
                     *           "confirmations": 12,
                     *           "required_confirmations": 12
                     *         },
                     *         "created_at": "2026-11-27 10:00:00",
                     *         "updated_at": "2026-11-27 10:09:00"
                     *       },
                     *       "error": null,
                     *       "message": "Simulated payout completed the refund",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["RefundDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description A request with the same Idempotency-Key is still in flight */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    RefundClaimsController_asset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: "claim.js" | "claim.css";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No such file */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    RefundClaimsController_page: {
        parameters: {
            query?: {
                /** @description How often the page asks for the refund's state (GET /refund_claims/{token}/state), in milliseconds */
                poll_ms?: number;
                lang?: "en" | "de";
            };
            header?: {
                /** @description Chooses the language when lang is not given (en, de) */
                "Accept-Language"?: string;
            };
            path: {
                /** @description The claim token, the last part of the refund's claim_url */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The claim page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description No such claim: a page saying so */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Over the anonymous rate limit */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    RefundClaimsController_claim: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The claim token, the last part of the refund's claim_url */
                token: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ClaimRefundRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "status": "AWAITING_PAYOUT",
                     *         "amount": "10.000000000000000000000000000000",
                     *         "currency": "USD",
                     *         "amount_usd": "10.000000000000000000000000000000",
                     *         "expires_at": "2026-11-28 10:00:00",
                     *         "methods": [],
                     *         "payout": {
                     *           "provider_id": "prov_ethereum_usdt",
                     *           "network": "ETHEREUM",
                     *           "currency": "USDT",
                     *           "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
                     *           "amount": "10.000000000000000000000000000000",
                     *           "uri": "ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=10000000"
                     *         }
                     *       },
                     *       "error": null,
                     *       "message": "Refund claimed",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["RefundClaimDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Too many requests; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Unavailable for now, retry shortly: the database is unreachable (service_unavailable), or, where prices are locked in (live mode, live rate sources), a rate they need is older than RATES_MAX_AGE_SECONDS (rates_unavailable; nothing was stored; Retry-After gives the seconds until the rate sources are asked again) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    RefundClaimsController_state: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The claim token, the last part of the refund's claim_url */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "status": "AWAITING_PAYOUT",
                     *         "amount": "10.000000000000000000000000000000",
                     *         "currency": "USD",
                     *         "amount_usd": "10.000000000000000000000000000000",
                     *         "expires_at": "2026-11-28 10:00:00",
                     *         "methods": [],
                     *         "payout": {
                     *           "provider_id": "prov_ethereum_usdt",
                     *           "network": "ETHEREUM",
                     *           "currency": "USDT",
                     *           "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
                     *           "amount": "10.000000000000000000000000000000",
                     *           "uri": "ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=10000000"
                     *         },
                     *         "test_mode": false,
                     *         "merchant": {
                     *           "name": "Acme"
                     *         },
                     *         "invoice": {
                     *           "id": "invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00",
                     *           "items": [
                     *             {
                     *               "name": "Pro plan",
                     *               "quantity": 1
                     *             }
                     *           ]
                     *         }
                     *       },
                     *       "error": null,
                     *       "message": "Refund claim",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["RefundClaimStateDto"];
                    };
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Too many requests; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    RefundClaimsController_testPayout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The claim token, the last part of the refund's claim_url */
                token: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SimulateRefundPayoutRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "status": "COMPLETED",
                     *         "amount": "10.000000000000000000000000000000",
                     *         "currency": "USD",
                     *         "amount_usd": "10.000000000000000000000000000000",
                     *         "expires_at": "2026-11-28 10:00:00",
                     *         "methods": [],
                     *         "payout": {
                     *           "provider_id": "prov_ethereum_usdt",
                     *           "network": "ETHEREUM",
                     *           "currency": "USDT",
                     *           "address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
                     *           "amount": "10.000000000000000000000000000000",
                     *           "uri": "ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed&uint256=10000000"
                     *         }
                     *       },
                     *       "error": null,
                     *       "message": "Simulated payout completed the refund",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["RefundClaimDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Body larger than the limit */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description Too many requests; see Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    CheckoutController_asset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                file: "checkout.js" | "page.js" | "amounts.js" | "currencies.js" | "api.js" | "qr.js" | "checkout.css" | "qrcode.mjs" | "favicon.svg";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description No such file */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    CheckoutController_page: {
        parameters: {
            query?: {
                /** @description How long "paid" shows before the page goes to redirect_url */
                redirect_ms?: number;
                /** @description How often the page asks for the invoice state, in milliseconds */
                poll_ms?: number;
                /** @description Language of the page; default: the best match of Accept-Language, else en */
                lang?: "en" | "de";
            };
            header?: {
                /** @description Chooses the language when lang is not given (en, de) */
                "Accept-Language"?: string;
            };
            path: {
                /** @description Invoice id (invoice_...) */
                invoice_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The checkout page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example <!doctype html>
                     *     <html lang="en">
                     *     <head>…<title>Checkout</title>
                     *     <link rel="stylesheet" href="/checkout/assets/checkout.css?v=…">
                     *     <script type="module" src="/checkout/assets/checkout.js?v=…"></script></head>
                     *     <body><main id="checkout" data-invoice-id="invoice_…" …>…</main></body></html>
                     */
                    "text/html": string;
                };
            };
            /** @description No such invoice: a page saying so */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Over the anonymous rate limit: a page saying so, with Retry-After */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
    SubscriptionsController_list: {
        parameters: {
            query?: {
                /** @description Only subscriptions in one of these statuses: repeat the parameter or separate the values with commas (they combine with OR) */
                status?: ("ACTIVE" | "PAST_DUE" | "CANCELED")[];
                /** @description Only subscriptions of this customer (case-insensitive, exact) */
                customer_email?: string;
                /** @description Maximum number of entries returned (default 20, at most 100) */
                limit?: number;
                /** @description Number of entries skipped (default 0) */
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "items": [
                     *           {
                     *             "id": "subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *             "status": "ACTIVE",
                     *             "product_id": "product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *             "billing_schema_id": "schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10",
                     *             "customer_email": "jane@example.com",
                     *             "customer_name": "Jane Doe",
                     *             "quantity": 1,
                     *             "metadata": {
                     *               "plan": "pro"
                     *             },
                     *             "starts_at": "2026-11-16 00:00:00",
                     *             "current_period_start": "2026-11-16 00:00:00",
                     *             "current_period_end": "2026-12-01 00:00:00",
                     *             "next_invoice_at": "2026-12-01 00:00:00",
                     *             "latest_invoice_id": null,
                     *             "cancel_at_period_end": false,
                     *             "canceled_at": null,
                     *             "created_at": "2026-11-16 00:00:00",
                     *             "updated_at": "2026-11-16 00:00:00"
                     *           }
                     *         ],
                     *         "total": 1,
                     *         "limit": 20,
                     *         "offset": 0,
                     *         "has_more": false
                     *       },
                     *       "error": null,
                     *       "message": "Subscriptions retrieved",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["SubscriptionListDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    SubscriptionsController_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Up to 255 printable characters. A retry with the same key and body returns the first response (header Idempotent-Replayed: true) instead of creating again; the same key with another body is 400; while the first request runs, 409 (idempotency_conflict); if the request was carried out but its answer was not stored (the service stopped, or it failed after committing its changes), 409 (idempotency_answer_lost). A request that failed before changing anything is not kept and may be retried with the same key; a retry takes over a claim that has committed nothing for two minutes, and the request it belonged to, if still running, is then refused with 409 (idempotency_conflict) and keeps nothing. Kept 24 hours. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSubscriptionRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 201,
                     *       "data": {
                     *         "id": "subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *         "status": "ACTIVE",
                     *         "product_id": "product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "billing_schema_id": "schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10",
                     *         "customer_email": "jane@example.com",
                     *         "customer_name": "Jane Doe",
                     *         "quantity": 1,
                     *         "metadata": {
                     *           "plan": "pro"
                     *         },
                     *         "starts_at": "2026-11-16 00:00:00",
                     *         "current_period_start": "2026-11-16 00:00:00",
                     *         "current_period_end": "2026-12-01 00:00:00",
                     *         "next_invoice_at": "2026-12-01 00:00:00",
                     *         "latest_invoice_id": null,
                     *         "cancel_at_period_end": false,
                     *         "canceled_at": null,
                     *         "created_at": "2026-11-16 00:00:00",
                     *         "updated_at": "2026-11-16 00:00:00"
                     *       },
                     *       "error": null,
                     *       "message": "Subscription created",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["SubscriptionResponseDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description A request with the same Idempotency-Key is still in flight */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    SubscriptionsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Subscription id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *         "status": "ACTIVE",
                     *         "product_id": "product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "billing_schema_id": "schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10",
                     *         "customer_email": "jane@example.com",
                     *         "customer_name": "Jane Doe",
                     *         "quantity": 1,
                     *         "metadata": {
                     *           "plan": "pro"
                     *         },
                     *         "starts_at": "2026-11-16 00:00:00",
                     *         "current_period_start": "2026-11-16 00:00:00",
                     *         "current_period_end": "2026-12-01 00:00:00",
                     *         "next_invoice_at": "2026-12-01 00:00:00",
                     *         "latest_invoice_id": null,
                     *         "cancel_at_period_end": false,
                     *         "canceled_at": null,
                     *         "created_at": "2026-11-16 00:00:00",
                     *         "updated_at": "2026-11-16 00:00:00"
                     *       },
                     *       "error": null,
                     *       "message": "Subscription retrieved",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["SubscriptionResponseDto"];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    SubscriptionsController_upcoming: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Subscription id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "subscription_id": "subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *         "period_start": "2026-11-16 00:00:00",
                     *         "period_end": "2026-12-01 00:00:00",
                     *         "invoice_at": "2026-12-01 00:00:00",
                     *         "currency": "USD",
                     *         "lines": [
                     *           {
                     *             "type": "BASE",
                     *             "description": "Acme API, Pro monthly × 1, 2026-11-16 00:00:00 to 2026-12-01 00:00:00 UTC, prorated",
                     *             "metric_key": null,
                     *             "quantity": "1",
                     *             "amount": "5.000000000000000000000000000000",
                     *             "period_start": "2026-11-16 00:00:00",
                     *             "period_end": "2026-12-01 00:00:00"
                     *           },
                     *           {
                     *             "type": "USAGE",
                     *             "description": "Acme API, Pro monthly: API calls, 1,500 units, 2026-11-16 00:00:00 to 2026-12-01 00:00:00 UTC",
                     *             "metric_key": "api_calls",
                     *             "quantity": "1500.000000000000000000000000000000",
                     *             "amount": "1.150000000000000000000000000000",
                     *             "period_start": "2026-11-16 00:00:00",
                     *             "period_end": "2026-12-01 00:00:00"
                     *           }
                     *         ],
                     *         "total": "6.150000000000000000000000000000"
                     *       },
                     *       "error": null,
                     *       "message": "Upcoming invoice",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["UpcomingInvoiceDto"];
                    };
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    SubscriptionsController_cancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Subscription id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["CancelSubscriptionRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "id": "subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *         "status": "ACTIVE",
                     *         "product_id": "product_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e0f",
                     *         "billing_schema_id": "schema_01932f6e-8a6b-7c3d-9e4f-5a6b7c8d9e10",
                     *         "customer_email": "jane@example.com",
                     *         "customer_name": "Jane Doe",
                     *         "quantity": 1,
                     *         "metadata": {
                     *           "plan": "pro"
                     *         },
                     *         "starts_at": "2026-11-16 00:00:00",
                     *         "current_period_start": "2026-11-16 00:00:00",
                     *         "current_period_end": "2026-12-01 00:00:00",
                     *         "next_invoice_at": "2026-12-01 00:00:00",
                     *         "latest_invoice_id": null,
                     *         "cancel_at_period_end": true,
                     *         "canceled_at": null,
                     *         "created_at": "2026-11-16 00:00:00",
                     *         "updated_at": "2026-11-16 00:00:00"
                     *       },
                     *       "error": null,
                     *       "message": "Subscription canceled",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["SubscriptionResponseDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description No such record in the caller's organization and mode. An id the caller's organization has in the other mode keeps the code; its error names the mode ("Invoice not found: it exists in test mode; this key is a live key."). Another organization's id gets the plain text. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    UsageEventsController_record: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UsageEventRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 201,
                     *       "data": {
                     *         "id": "evt_2026_11_27_000123",
                     *         "subscription_id": "subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *         "metric_key": "api_calls",
                     *         "value": "1.000000000000000000000000000000",
                     *         "unique_key": null,
                     *         "timestamp": "2026-11-27 10:15:00",
                     *         "created_at": "2026-11-27 10:15:01"
                     *       },
                     *       "error": null,
                     *       "message": "Usage recorded",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["UsageEventResponseDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    UsageEventsController_batch: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UsageBatchRequestDto"];
            };
        };
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "created": 1,
                     *         "duplicates": 0,
                     *         "items": [
                     *           {
                     *             "id": "evt_2026_11_27_000123",
                     *             "subscription_id": "subscription_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01",
                     *             "metric_key": "api_calls",
                     *             "value": "1.000000000000000000000000000000",
                     *             "unique_key": null,
                     *             "timestamp": "2026-11-27 10:15:00",
                     *             "created_at": "2026-11-27 10:15:01"
                     *           }
                     *         ]
                     *       },
                     *       "error": null,
                     *       "message": "Usage recorded",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["UsageBatchResponseDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    AuditLogController_list: {
        parameters: {
            query?: {
                /** @description The last id of the previous page */
                starting_after?: unknown;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Success */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": 200,
                     *       "data": {
                     *         "items": [],
                     *         "has_more": false,
                     *         "next_starting_after": null
                     *       },
                     *       "error": null,
                     *       "message": "Audit log",
                     *       "env": "development",
                     *       "log": {
                     *         "request_id": "5f0c6b1e-6a7d-4f0e-9b9c-3a0e4d2f1c11"
                     *       },
                     *       "validator": null,
                     *       "support_id": null
                     *     }
                     */
                    "application/json": components["schemas"]["SuccessEnvelopeDto"] & {
                        data: components["schemas"]["AuditLogPageDto"];
                    };
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description The key lacks the right (read-only key on a write, live key on a test-only call) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    ExportsController_invoices: {
        parameters: {
            query?: {
                /** @description Only invoices having a payment through this provider */
                provider_id?: unknown;
                /** @description Exact customer email, compared case-insensitively */
                customer_email?: unknown;
                /** @description Inclusive upper bound on price_usd (decimal) */
                price_usd_to?: unknown;
                /** @description Inclusive lower bound on price_usd (decimal) */
                price_usd_from?: unknown;
                /** @description Invoice currencies (OR); tickers are read (btc is BITCOIN). Several values: repeat the parameter or separate them with commas. */
                currency?: string[];
                /** @description Invoice statuses (OR). Several values: repeat the parameter or separate them with commas. */
                status?: ("PENDING" | "COMPLETED" | "VOIDED" | "PROCESSING" | "WAITING_FOR_CONFIRMATIONS" | "PARTIALLY_PAID")[];
                /** @description Inclusive lower bound on created_at: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (the whole day, UTC) or ISO 8601 */
                created_at_from?: unknown;
                /** @description Inclusive upper bound on created_at: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (the whole day, UTC) or ISO 8601 */
                created_at_to?: unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invoices, as CSV */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example id,organization_id,status,substatus,currency,price,price_usd,refunded_usd,customer_email,created_at,updated_at,expires_at,monitoring_until,redirect_url,checkout_url,subscription_id,period_start,period_end,metadata
                     *     invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00,org_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e10,COMPLETED,,USD,25.000000000000000000000000000000,25.000000000000000000000000000000,0.000000000000000000000000000000,jane@example.com,2026-11-02 09:30:00,2026-11-02 09:41:12,2026-11-02 10:30:00,2026-11-02 11:30:00,,https://pay.example.com/checkout/invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00,,,,"{""order"":""1042""}"
                     */
                    "text/csv": string;
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    ExportsController_payments: {
        parameters: {
            query?: {
                /** @description Only the payments of this invoice */
                invoice_id?: unknown;
                /** @description Provider ids (OR). Several values: repeat the parameter or separate them with commas. */
                provider_id?: string[];
                /** @description Inclusive upper bound on price_usd (decimal) */
                price_usd_to?: unknown;
                /** @description Inclusive lower bound on price_usd (decimal) */
                price_usd_from?: unknown;
                /** @description Payment currencies (OR); tickers are read. Several values: repeat the parameter or separate them with commas. */
                currency?: string[];
                /** @description Payment statuses (OR). Several values: repeat the parameter or separate them with commas. */
                status?: ("PENDING" | "COMPLETED" | "FAILED" | "CANCELLED")[];
                /** @description Inclusive lower bound on created_at: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (the whole day, UTC) or ISO 8601 */
                created_at_from?: unknown;
                /** @description Inclusive upper bound on created_at: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (the whole day, UTC) or ISO 8601 */
                created_at_to?: unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The payments, as CSV */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example id,organization_id,invoice_id,provider_id,status,currency,price,price_usd,tx_hash,confirmations,required_confirmations,idempotency_key,happened_at,created_at,updated_at
                     *     payment_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e01,org_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e10,invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00,prov_ethereum_usdt,COMPLETED,USDT,25.000000000000000000000000000000,25.000000000000000000000000000000,,12,12,,2026-11-02 09:40:00,2026-11-02 09:40:00,2026-11-02 09:41:12
                     */
                    "text/csv": string;
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
    ExportsController_refunds: {
        parameters: {
            query?: {
                /** @description Only this invoice's refunds */
                invoice_id?: unknown;
                /** @description Refund statuses (OR). Several values: repeat the parameter or separate them with commas. */
                status?: ("AWAITING_DESTINATION" | "AWAITING_PAYOUT" | "SENT" | "COMPLETED" | "CANCELED" | "EXPIRED")[];
                /** @description Inclusive lower bound on created_at: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (the whole day, UTC) or ISO 8601 */
                created_at_from?: unknown;
                /** @description Inclusive upper bound on created_at: YYYY-MM-DD HH:MM:SS (UTC), YYYY-MM-DD (the whole day, UTC) or ISO 8601 */
                created_at_to?: unknown;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The refunds, as CSV */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example id,invoice_id,status,amount,currency,amount_usd,rate,reason,claim_url,expires_at,destination.provider_id,destination.network,destination.address,payout.provider_id,payout.network,payout.currency,payout.address,payout.amount,payout.uri,payout.tx_hash,payout.confirmations,payout.required_confirmations,created_at,updated_at
                     *     refund_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e20,invoice_01936a5e-7a7b-7c3d-9e4f-5a6b7c8d9e00,AWAITING_DESTINATION,10.000000000000000000000000000000,USD,10.000000000000000000000000000000,original,'=not a formula,https://pay.example.com/refund_claims/AbC,2026-11-09 09:30:00,,,,,,,,,,,,,2026-11-02 09:30:00,2026-11-02 09:30:00
                     */
                    "text/csv": string;
                };
            };
            /** @description Invalid input (per-field messages in validator) or a refused state change */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
            /** @description API key missing, malformed, unknown or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": components["schemas"]["ErrorEnvelopeDto"];
                };
            };
        };
    };
}
