/**
 * Auth and tenancy sweep over EVERY route of the app.
 *
 * The routes come from the server's own route table (`registeredRoutes`, recorded by an
 * `onRoute` hook in src/http/server.ts, with each route's `config.auth`). ROUTES below classifies
 * each one; the suite fails when the app has a route the table does not list, or the table lists
 * one the app does not have: a new route is added here consciously, with its access rule.
 *
 * - bearer: `config.auth = 'bearer'`. Without a token, or with a malformed, forged or expired
 *   one: 401 and `WWW-Authenticate: Bearer ... error="invalid_token"`. With an object id: the
 *   object of merchant A (created through the API) answers 404 to merchant B.
 * - dashboard: dashboard e-mail and password (HTTP Basic), checked in the handler. Without
 *   credentials (or with an access token instead): 401 with a Basic challenge. With an object
 *   id: 404 to another merchant's dashboard.
 * - public: no credentials by design; the reason is written down.
 *
 * Fastify's automatic HEAD twin of a listed GET route shares its class (and is swept as such);
 * any other HEAD route must be listed.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokens } from '../../src/auth/access-tokens.ts';
import { registeredRoutes } from '../../src/http/server.ts';
import { minimalPurchase, twoMerchants, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { form, signIn } from '../helpers/dashboard.ts';
import { deliveries, leaderProcessed, NO_JOB_POLL, Receiver, setWebhook, TEST_DELIVERY } from '../delivery/helpers.ts';

/** Merchant A's objects, created through the API. */
interface Owned {
  /** Bare uuid of a purchase (Merchant API v1 id). */
  purchase: string;
  /** A v1 client id. */
  client: string;
  /** Bare uuid of a purchase whose leader paid and invited a pledger (a message was sent). */
  pot: string;
  /** `plg_...` of an invited pledge. */
  pledge: string;
  /** `mer_...` of A's SHARED offer. */
  offer: string;
  /** `mer_...` of A's 3-installment offer. */
  installmentsOffer: string;
  /** `dlv_...` of a delivery of A's webhook. */
  delivery: string;
  /** Bare uuids of two purchases left CREATED for the cancel routes (Merchant API v1, back office). */
  cancellable: string;
  boCancellable: string;
  /** `psa_...` of A's PSP account (bound to nothing), and one the DELETE sweep may delete. */
  pspAccount: string;
  sparePspAccount: string;
  /** `dsp_...` of an open dispute on a payment of A's (the sandbox's chargeback card). */
  dispute: string;
  /** Bare uuid of the purchase that dispute is on. */
  disputed: string;
  /** `dsp_...` of another, for the sandbox helpers that decide it, and a third for the back-office page's evidence form. */
  sandboxDispute: string;
  pageDispute: string;
}

interface Call {
  url: string;
  payload?: unknown;
}

/**
 * How another merchant meets A's object: `404` (as an unknown id), or `hidden` (a listing or a
 * filter that answers 2xx without any of A's objects in it).
 */
type Tenancy = { expect: '404' | 'hidden'; call: (o: Owned) => Call };

type RouteClass =
  | { access: 'bearer'; tenancy?: Tenancy; none?: string }
  | { access: 'session'; tenancy?: Tenancy; none?: string }
  | { access: 'dashboard'; tenancy?: Tenancy; none?: string; payload?: unknown }
  | { access: 'public'; reason: string }
  | { access: 'shopper'; reason: string };

const bearer = (tenancy: Tenancy | undefined, none?: string): RouteClass => ({ access: 'bearer', tenancy, none });
const dashboard = (tenancy: Tenancy | undefined, extra: { none?: string; payload?: unknown } = {}): RouteClass => ({ access: 'dashboard', tenancy, ...extra });
const session = (tenancy: Tenancy | undefined, none?: string): RouteClass => ({ access: 'session', tenancy, none });
const open = (reason: string): RouteClass => ({ access: 'public', reason });
/** A page of the shopper's space: a shopper session, and then only the shopper's own purchases (test/http/shopper-space-*.test.ts). */
const shopper = (reason: string): RouteClass => ({ access: 'shopper', reason });

const CARD = '4242 4242 4242 4242';
const SIMULATION = { amount_cents: 30_000, created: '2026-01-31' };
const LINK = { data: { title: 'Sweep', amountCents: 10_000, email: 'leader@example.com', language: 'en_GB' } };

/** Every route of the app (sandbox mode: a superset of production's). Keys: `METHOD url`. */
const ROUTES: Record<string, RouteClass> = {
  // --- Token API and Merchant API v1: access token ---
  'GET /api/whoami': bearer(undefined, 'describes the caller itself'),
  'POST /api/merchants/v1/purchases': bearer(undefined, 'creates an object of the caller'),
  'GET /api/merchants/v1/purchases': bearer({ expect: 'hidden', call: () => ({ url: '/api/merchants/v1/purchases' }) }),
  'GET /api/merchants/v1/purchases/:id': bearer({ expect: '404', call: (o) => ({ url: `/api/merchants/v1/purchases/${o.purchase}` }) }),
  'GET /api/merchants/v1/clients/:id': bearer({ expect: '404', call: (o) => ({ url: `/api/merchants/v1/clients/${o.client}` }) }),
  'POST /api/merchants/:merchant_uid/purchase_link': bearer({ expect: '404', call: (o) => ({ url: `/api/merchants/${o.offer}/purchase_link`, payload: LINK }) }),
  'POST /api/purchases/:purchase_uid/abort': bearer({ expect: '404', call: (o) => ({ url: `/api/purchases/pur_${o.purchase}/abort` }) }),
  // A's call releases (cancels) the purchase the v1 cancel sweep cancels too: either order answers 200 or 409, never 404.
  'POST /api/purchases/:purchase_uid/release': bearer({ expect: '404', call: (o) => ({ url: `/api/purchases/pur_${o.cancellable}/release` }) }),
  'POST /api/purchases/:purchase_uid/credit_by_transfer': bearer({
    expect: '404',
    call: (o) => ({ url: `/api/purchases/pur_${o.pot}/credit_by_transfer`, payload: { amount_cents: 1 } }),
  }),
  'POST /api/merchants/v1/purchases/:id/refunds': bearer({ expect: '404', call: (o) => ({ url: `/api/merchants/v1/purchases/${o.pot}/refunds`, payload: { amount: 1 } }) }),
  'GET /api/merchants/v1/purchases/:id/refunds': bearer({ expect: '404', call: (o) => ({ url: `/api/merchants/v1/purchases/${o.pot}/refunds` }) }),
  'POST /api/merchants/v1/purchases/:id/cancel': bearer({ expect: '404', call: (o) => ({ url: `/api/merchants/v1/purchases/${o.cancellable}/cancel` }) }),
  'POST /api/merchants/:merchant_uid/simulate_payment_schedule': bearer({
    expect: '404',
    call: (o) => ({ url: `/api/merchants/${o.installmentsOffer}/simulate_payment_schedule`, payload: SIMULATION }),
  }),
  'POST /api/merchants/v1/eligibility': bearer({ expect: '404', call: (o) => ({ url: '/api/merchants/v1/eligibility', payload: { amount: 30_000, offers: [o.offer] } }) }),
  // --- Sandbox helpers: access token ---
  'GET /api/sandbox/messages': bearer({ expect: 'hidden', call: (o) => ({ url: `/api/sandbox/messages?purchase_uid=pur_${o.pot}` }) }),
  'POST /api/sandbox/purchases/:purchase_uid/pay': bearer({
    expect: '404',
    call: (o) => ({ url: `/api/sandbox/purchases/pur_${o.purchase}/pay`, payload: { card_number: CARD } }),
  }),
  'POST /api/sandbox/pledges/:pledge_id/pay': bearer({ expect: '404', call: (o) => ({ url: `/api/sandbox/pledges/${o.pledge}/pay`, payload: { card_number: CARD } }) }),
  'GET /api/sandbox/purchases/:purchase_uid/disputes': bearer({ expect: '404', call: (o) => ({ url: `/api/sandbox/purchases/pur_${o.disputed}/disputes` }) }),
  'POST /api/sandbox/disputes/:dispute_id/win': bearer({ expect: '404', call: (o) => ({ url: `/api/sandbox/disputes/${o.sandboxDispute}/win` }) }),
  'POST /api/sandbox/disputes/:dispute_id/lose': bearer({ expect: '404', call: (o) => ({ url: `/api/sandbox/disputes/${o.sandboxDispute}/lose` }) }),
  'GET /api/sandbox/clock': bearer(undefined, 'the sandbox clock is service-wide, no object of an account'),
  'POST /api/sandbox/clock': bearer(undefined, 'the sandbox clock is service-wide, no object of an account'),
  // --- Back office and sandbox inbox: dashboard credentials ---
  'PUT /api/backoffice/webhook': dashboard(undefined, { none: "sets the caller's own endpoint", payload: { url: 'https://shop.example/hook' } }),
  'DELETE /api/backoffice/webhook': dashboard(undefined, { none: "removes the caller's own endpoint (another merchant's stays: test/delivery/webhooks.test.ts)" }),
  'POST /api/backoffice/webhook/test': dashboard(undefined, { none: "sends a test event to the caller's own endpoint (test/dashboard/webhook-test-event.test.ts)" }),
  'GET /api/backoffice/webhook': dashboard(undefined, { none: "the caller's own endpoint (another merchant without one gets 404: test/delivery/webhooks.test.ts)" }),
  'GET /api/backoffice/deliveries': dashboard({ expect: 'hidden', call: (o) => ({ url: `/api/backoffice/deliveries?purchase_uid=pur_${o.purchase}` }) }),
  'GET /api/backoffice/deliveries/:delivery_id': dashboard({ expect: '404', call: (o) => ({ url: `/api/backoffice/deliveries/${o.delivery}` }) }),
  'POST /api/backoffice/deliveries/:delivery_id/replay': dashboard({ expect: '404', call: (o) => ({ url: `/api/backoffice/deliveries/${o.delivery}/replay` }) }),
  'POST /api/backoffice/purchases/:id/refunds': dashboard({ expect: '404', call: (o) => ({ url: `/api/backoffice/purchases/pur_${o.pot}/refunds`, payload: { amount: 1 } }) }),
  'GET /api/backoffice/purchases/:id/refunds': dashboard({ expect: '404', call: (o) => ({ url: `/api/backoffice/purchases/pur_${o.pot}/refunds` }) }),
  'POST /api/backoffice/purchases/:id/cancel': dashboard({ expect: '404', call: (o) => ({ url: `/api/backoffice/purchases/pur_${o.boCancellable}/cancel` }) }),
  'GET /api/backoffice/disputes': dashboard({ expect: 'hidden', call: () => ({ url: '/api/backoffice/disputes?state=all' }) }),
  'POST /api/backoffice/disputes/:id/evidence': dashboard(
    { expect: '404', call: (o) => ({ url: `/api/backoffice/disputes/${o.dispute}/evidence`, payload: { text: 'Sweep' } }) },
    { payload: { text: 'Sweep' } },
  ),
  'GET /api/backoffice/psps': dashboard(undefined, { none: 'the PSP connectors of this build: no object of an account' }),
  'GET /api/backoffice/psp_catalogue': dashboard(undefined, { none: 'the PSPs a merchant may name and their routes: no object of an account' }),
  'POST /api/backoffice/psp_accounts': dashboard(undefined, {
    none: 'creates an object of the caller',
    payload: { psp: 'sandbox', environment: 'test', label: 'Sweep', credentials: {} },
  }),
  'GET /api/backoffice/psp_accounts': dashboard({ expect: 'hidden', call: () => ({ url: '/api/backoffice/psp_accounts' }) }),
  'GET /api/backoffice/psp_accounts/:id': dashboard({ expect: '404', call: (o) => ({ url: `/api/backoffice/psp_accounts/${o.pspAccount}` }) }),
  'PATCH /api/backoffice/psp_accounts/:id': dashboard(
    { expect: '404', call: (o) => ({ url: `/api/backoffice/psp_accounts/${o.pspAccount}`, payload: { label: 'Renamed' } }) },
    { payload: { label: 'Renamed' } },
  ),
  'POST /api/backoffice/psp_accounts/:id/verify': dashboard({ expect: '404', call: (o) => ({ url: `/api/backoffice/psp_accounts/${o.pspAccount}/verify` }) }),
  'DELETE /api/backoffice/psp_accounts/:id': dashboard({ expect: '404', call: (o) => ({ url: `/api/backoffice/psp_accounts/${o.sparePspAccount}` }) }),
  'GET /api/backoffice/offers': dashboard({ expect: 'hidden', call: () => ({ url: '/api/backoffice/offers' }) }),
  'PATCH /api/backoffice/offers/:merchant_uid': dashboard(
    { expect: '404', call: (o) => ({ url: `/api/backoffice/offers/${o.offer}`, payload: { psp_account_id: null } }) },
    { payload: { psp_account_id: null } },
  ),
  'GET /api/backoffice/risk_rules': dashboard({ expect: 'hidden', call: () => ({ url: '/api/backoffice/risk_rules' }) }),
  'PUT /api/backoffice/risk_rules/account': dashboard(undefined, { none: "replaces the caller's own account's defaults", payload: {} }),
  'PUT /api/backoffice/risk_rules/offers/:merchant_uid': dashboard(
    { expect: '404', call: (o) => ({ url: `/api/backoffice/risk_rules/offers/${o.offer}`, payload: {} }) },
    { payload: {} },
  ),
  'POST /api/backoffice/reconciliation_runs': dashboard(undefined, { none: "reconciles the caller's own account's payments", payload: { from: '2026-11-01', to: '2026-11-01' } }),
  'GET /api/backoffice/reconciliation_runs': dashboard(undefined, { none: "the caller's own account's runs (test/dashboard/reconciliation.test.ts)" }),
  'GET /api/backoffice/reconciliation_mismatches': dashboard(undefined, {
    none: "the caller's own account's mismatches (another account's: none, test/dashboard/reconciliation.test.ts)",
  }),
  'PATCH /api/backoffice/reconciliation_mismatches/:id': dashboard(undefined, {
    none: "another account's mismatch answers 404 (test/dashboard/reconciliation.test.ts)",
    payload: { state: 'explained' },
  }),
  'GET /api/backoffice/risk_decisions': dashboard(undefined, { none: "the caller's own account's decisions (another account's: none, test/dashboard/risk-decisions.test.ts)" }),
  'GET /api/backoffice/risk_decisions.csv': dashboard(undefined, { none: "the caller's own account's decisions (another account's: none, test/dashboard/risk-decisions.test.ts)" }),
  'GET /api/backoffice/reports/daily': dashboard(undefined, { none: "the caller's own account's daily figures (another account's: none, test/reports/daily-report.test.ts)" }),
  'GET /api/backoffice/reports/daily.csv': dashboard(undefined, { none: "the caller's own account's daily figures (another account's: none, test/reports/daily-report.test.ts)" }),
  'GET /api/backoffice/risk_scoring_hook': dashboard(undefined, { none: "the caller's own hook (another merchant's: 404, test/http/risk-scoring-hook.test.ts)" }),
  'PUT /api/backoffice/risk_scoring_hook': dashboard(undefined, { none: "sets the caller's own hook", payload: { url: 'https://fraud.example/score' } }),
  'DELETE /api/backoffice/risk_scoring_hook': dashboard(undefined, { none: "removes the caller's own hook (another merchant's stays: test/http/risk-scoring-hook.test.ts)" }),
  'GET /api/backoffice/balance': dashboard(undefined, { none: "the caller's own account's balance (another account's: none, test/payouts/back-office.test.ts)" }),
  'GET /api/backoffice/payouts': dashboard(undefined, { none: "the caller's own account's payouts (another account's: none, test/payouts/back-office.test.ts)" }),
  'GET /api/backoffice/payouts/:payout_id': dashboard(undefined, { none: "another account's payout answers 404 (test/payouts/back-office.test.ts)" }),
  'GET /api/backoffice/payouts/:payout_id/lines.csv': dashboard(undefined, { none: "another account's payout answers 404 (test/payouts/back-office.test.ts)" }),
  'GET /api/backoffice/payout_bank_details': dashboard(undefined, { none: "the caller's own account's bank details (another account's: 404, test/payouts/back-office.test.ts)" }),
  'PUT /api/backoffice/payout_bank_details': dashboard(undefined, {
    none: "sets the caller's own account's bank details",
    payload: { holder_name: 'Sweep', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP', current_password: 'not-checked-before-sign-in' },
  }),
  // --- Back-office pages: the session cookie of the sign-in form (test/dashboard/) ---
  'GET /dashboard': session(undefined, "the caller's own figures: counts and sums, no object of an account (other accounts' data never counted: test/dashboard/home.test.ts)"),
  'POST /dashboard/sign-out': session(undefined, "ends the caller's own session"),
  'GET /dashboard/purchases': session({ expect: 'hidden', call: () => ({ url: '/dashboard/purchases' }) }),
  'GET /dashboard/purchases.csv': session({ expect: 'hidden', call: () => ({ url: '/dashboard/purchases.csv' }) }),
  'GET /dashboard/purchases/:id': session({ expect: '404', call: (o) => ({ url: `/dashboard/purchases/pur_${o.purchase}` }) }),
  'POST /dashboard/purchases/:id/refund': session({ expect: '404', call: (o) => ({ url: `/dashboard/purchases/pur_${o.pot}/refund`, payload: { amount: '0.01' } }) }),
  'GET /dashboard/disputes': session({ expect: 'hidden', call: () => ({ url: '/dashboard/disputes' }) }),
  'POST /dashboard/disputes/:id/evidence': session({ expect: '404', call: (o) => ({ url: `/dashboard/disputes/${o.pageDispute}/evidence`, payload: { text: 'Sweep' } }) }),
  'POST /dashboard/purchases/:id/cancel': session({ expect: '404', call: (o) => ({ url: `/dashboard/purchases/pur_${o.boCancellable}/cancel` }) }),
  'GET /dashboard/developers': session({ expect: 'hidden', call: () => ({ url: '/dashboard/developers' }) }),
  'POST /dashboard/developers/webhook': session(undefined, "sets the caller's own endpoint"),
  'POST /dashboard/developers/webhook/test': session(undefined, "sends a test event to the caller's own endpoint (test/dashboard/webhook-test-event.test.ts)"),
  'POST /dashboard/developers/deliveries/:delivery_id/replay': session({ expect: '404', call: (o) => ({ url: `/dashboard/developers/deliveries/${o.delivery}/replay` }) }),
  'GET /dashboard/developers/deliveries/:delivery_id': session({ expect: '404', call: (o) => ({ url: `/dashboard/developers/deliveries/${o.delivery}` }) }),
  'POST /dashboard/developers/keys': session(undefined, "makes a key on the caller's own account"),
  'POST /dashboard/developers/keys/:api_key/:action': session(undefined, "rotates or revokes the caller's own key (another account's key: 404, test/dashboard/api-keys.test.ts)"),
  'GET /dashboard/offers': session({ expect: 'hidden', call: () => ({ url: '/dashboard/offers' }) }),
  'GET /dashboard/offers/:merchant_uid': session({ expect: '404', call: (o) => ({ url: `/dashboard/offers/${o.offer}` }) }),
  'POST /dashboard/offers/:merchant_uid': session({ expect: '404', call: (o) => ({ url: `/dashboard/offers/${o.offer}`, payload: { psp_account_id: '' } }) }),
  'POST /dashboard/offers/:merchant_uid/risk-rules': session({
    expect: '404',
    call: (o) => ({ url: `/dashboard/offers/${o.offer}/risk-rules`, payload: { mode_min_score: 'off' } }),
  }),
  'GET /dashboard/psp-accounts': session({ expect: 'hidden', call: () => ({ url: '/dashboard/psp-accounts' }) }),
  'GET /dashboard/psp-accounts/new': session(undefined, 'the add form of a connector: no account data'),
  'POST /dashboard/psp-accounts': session(undefined, "adds a PSP account to the caller's own account"),
  'GET /dashboard/psp-accounts/:psa_id': session({ expect: '404', call: (o) => ({ url: `/dashboard/psp-accounts/${o.pspAccount}` }) }),
  'POST /dashboard/psp-accounts/:psa_id': session({ expect: '404', call: (o) => ({ url: `/dashboard/psp-accounts/${o.pspAccount}`, payload: { label: 'Renamed' } }) }),
  'POST /dashboard/psp-accounts/:psa_id/verify': session({ expect: '404', call: (o) => ({ url: `/dashboard/psp-accounts/${o.pspAccount}/verify` }) }),
  'POST /dashboard/psp-accounts/:psa_id/delete': session(undefined, "deletes the caller's own PSP account (another account's: 404, test/dashboard/psp-accounts.test.ts)"),
  'GET /dashboard/account/password': session(undefined, 'the form only: no account data'),
  'POST /dashboard/account/password': session(undefined, "changes the caller's own password (the current one asked again)"),
  'GET /dashboard/reconciliation': session(undefined, "the caller's own account's runs and mismatches (test/dashboard/reconciliation.test.ts)"),
  'POST /dashboard/reconciliation/runs': session(undefined, "reconciles the caller's own account's payments (admins only: test/dashboard/reconciliation.test.ts)"),
  'POST /dashboard/reconciliation/mismatches/:id': session(undefined, "another account's mismatch answers 404 (admins only: test/dashboard/reconciliation.test.ts)"),
  'GET /dashboard/settings': session(undefined, "the caller's own account's time zone: no object another account could name"),
  'GET /dashboard/reports': session(undefined, "the caller's own account's daily figures: no object another account could name (test/reports/daily-report.test.ts)"),
  'GET /dashboard/payouts': session(undefined, "the caller's own account's balance, bank details and payouts (another account's: none, test/payouts/back-office.test.ts)"),
  'POST /dashboard/payouts/bank-details': session(undefined, "sets the caller's own account's bank details (admins only: test/payouts/back-office.test.ts)"),
  'GET /dashboard/payouts/:id': session(undefined, "another account's payout answers 404 (test/payouts/back-office.test.ts)"),
  // The operator's pages: every merchant's payout files, for the operator's staff only; a merchant's admin and support are refused by role.
  'GET /dashboard/operator/payouts': session(undefined, "the operator's staff only, across merchants by design (role refusal: test/payouts/back-office.test.ts)"),
  'POST /dashboard/operator/payouts/exports': session(undefined, "the operator's staff only: makes the operator's file (test/payouts/back-office.test.ts)"),
  'GET /dashboard/operator/payouts/exports/:export_id/file': session(undefined, "the operator's staff only, any merchant's file by design (test/payouts/back-office.test.ts)"),
  'POST /dashboard/operator/payouts/exports/:export_id/sent': session(undefined, "the operator's staff only, any merchant's file by design (test/payouts/back-office.test.ts)"),
  'POST /dashboard/settings': session(undefined, "sets the caller's own account's time zone (admins only: test/dashboard/settings.test.ts)"),
  'GET /dashboard/settings/risk-rules': session(undefined, "the caller's own account's default risk rules: no object another account could name"),
  'POST /dashboard/settings/risk-rules': session(undefined, "sets the caller's own account's default risk rules (admins only: test/dashboard/risk-rules-page.test.ts)"),
  'GET /dashboard/team': session({ expect: 'hidden', call: () => ({ url: '/dashboard/team' }) }),
  'POST /dashboard/team/members/:id': session(undefined, "changes the caller's own account's members (another account's member: 404, test/dashboard/team.test.ts)"),
  'POST /dashboard/team/invitations': session(undefined, "invites to the caller's own account (admins only: test/dashboard/invitations.test.ts)"),
  'POST /dashboard/team/invitations/:id/revoke': session(undefined, "revokes the caller's own account's invitation (another account's: 404, test/dashboard/invitations.test.ts)"),
  'GET /sandbox/inbox': dashboard(undefined, { none: "the caller's own messages (isolation: test/messaging/inbox.test.ts)" }),
  // --- The shopper's space (docs/shopper-space.md) ---
  'GET /space': shopper("the shopper's own purchases, found by the session's identity (test/http/shopper-space-purchases.test.ts)"),
  'GET /space/purchases/:purchase_uid': shopper("one of the shopper's purchases; any other answers 404 (test/http/shopper-space-purchases.test.ts)"),
  'POST /space/purchases/:purchase_uid/installments/:installment_id/pay': shopper(
    "pays a refused installment of the shopper's own purchase, as its leader; any other: 404 (test/http/shopper-space-pay.test.ts)",
  ),
  'POST /space/purchases/:purchase_uid/repay': shopper("repays the rest of the shopper's own plan, as its leader; any other: 404 (test/http/shopper-space-pay.test.ts)"),
  'POST /space/purchases/:purchase_uid/card': shopper("changes the card of the shopper's own plan, as its leader; any other: 404 (test/http/shopper-space-pay.test.ts)"),
  'GET /space/purchases/:purchase_uid/payments/:payment_id/return': shopper(
    "back from 3-D Secure on the shopper's own purchase, with one of its own payments; any other purchase, or another's payment: 404 (test/http/shopper-space-pay.test.ts, test/http/return-binding.test.ts)",
  ),
  'GET /space/sign-in': open("the shopper's space sign-in form"),
  'POST /space/sign-in': open('asks for a sign-in link or code, throttled per identity and address (test/http/shopper-space-sign-in.test.ts)'),
  'GET /space/sign-in/sent': open('"check your e-mail": no data'),
  'GET /space/sign-in/link/:token': open('a sign-in link: its 256-bit token, in the browser that asked, is the credential (test/http/shopper-space-sign-in.test.ts)'),
  'GET /space/sign-in/code': open('the code form: no data'),
  'POST /space/sign-in/code': open("an SMS code, with the asking browser's cookie, 5 tries (test/http/shopper-space-sign-in.test.ts)"),
  'POST /space/sign-out': open("ends the caller's own session (its CSRF token asked)"),
  // --- Public ---
  'GET /dashboard/sign-in': open('the back-office sign-in form'),
  'GET /dashboard/invitation': open(
    "an invitation link: its 256-bit token is the credential; links that open nothing count against the address's dashboard budget (test/dashboard/invitations.test.ts)",
  ),
  'POST /dashboard/invitation': open('accepting an invitation: the token in the form is the credential, under the same budget (test/dashboard/invitations.test.ts)'),
  'POST /dashboard/sign-in': open(
    'the back-office sign-in form: checks the dashboard e-mail and password itself, under the DashboardGuard budget (test/dashboard/session.test.ts)',
  ),
  'POST /api/token': open('the token endpoint: authenticates the API key and secret itself (test/http/token.test.ts)'),
  'POST /api/trigger_capture/': open('authenticated by an HS256 signature of the offer secret in the query, not a token (test/payments/installments.test.ts)'),
  'POST /api/trigger_capture': open('the same, spelled without the trailing slash'),
  'GET /api/payment_by_transfer': open(
    "the direct call of the back: the shop's settings signed with the offer's secret (mandatory), not a token; creates at most an unpaid purchase (test/http/transfer-mode.test.ts)",
  ),
  'POST /api/payment_by_transfer': open('the same call, its signature in the query or a JSON body'),
  'OPTIONS /api/users/me/merchants/:merchant_uid/simulate_payment_schedule': open('CORS preflight of the front-end simulation'),
  'POST /api/users/me/merchants/:merchant_uid/simulate_payment_schedule': open('front-end simulation, called from shop pages without credentials (rate limited)'),
  'OPTIONS /api/users/me/merchants/:merchant_uid/eligibility': open('CORS preflight of the front-end eligibility call'),
  'POST /api/users/me/merchants/:merchant_uid/eligibility': open(
    'front-end eligibility call, from shop pages without credentials (rate limited; history reasons collapsed, no score: test/http/eligibility.test.ts)',
  ),
  'GET /pay/:purchase_uid': open('hosted payment page: the unguessable purchase link is the capability'),
  'POST /pay/:purchase_uid': open('hosted payment page form'),
  'POST /pay/:purchase_uid/switch': open('hosted payment page: the fallback offer after a risk refusal (CSRF-checked form; the purchase link is the capability)'),
  'GET /pay/:purchase_uid/return': open(
    "return from the card issuer (3-D Secure) to the hosted page: the purchase's own payment only, another's 404 (test/http/return-binding.test.ts)",
  ),
  'POST /pay/:purchase_uid/return': open("the card issuer's form POST back, redirected to the GET"),
  'GET /pay/:purchase_uid/confirming': open(
    "the leader's attempt in progress, refreshed until its outcome is known (docs/hosted-payment.md#an-attempt-in-progress): the purchase link is the capability",
  ),
  'GET /pledge/:pledge_uid': open('hosted pledge page: the unguessable pledge link is the capability'),
  'POST /pledge/:pledge_uid': open('hosted pledge page form'),
  'GET /pledge/:pledge_uid/return': open(
    "return from the card issuer (3-D Secure) to the pledge page: the pledge's own payment only, another's 404 (test/http/return-binding.test.ts)",
  ),
  'POST /pledge/:pledge_uid/return': open("the card issuer's form POST back, redirected to the GET"),
  'GET /pledge/:pledge_uid/confirming': open(
    "the friend's payment in progress, refreshed until its outcome is known (docs/hosted-payment.md#an-attempt-in-progress): the pledge link is the capability, another pledge's resolves nothing (test/http/pledge-confirming.test.ts)",
  ),
  'GET /assets/checkout.js': open('static script of the hosted pages'),
  'GET /assets/result.js': open('static script of the hosted pages'),
  'GET /assets/copy.js': open("static script of the back office's copy buttons"),
  'GET /assets/confirming.js': open("static script of the hosted pages' wait for a payment being confirmed"),
  'GET /sdk/chipin.js': open("chipin.js for merchants' pages (static, public by nature)"),
  'GET /sdk/v1/chipin.js': open('chipin.js, versioned and immutable (SRI-pinned by shops)'),
  'GET /purchase': open("the direct call of the front: the shop plugins' settings (unsigned public input, or signed with the offer's secret), throttled per address"),
  'GET /purchases': open('the direct call of the front at the path the original documentation gives'),
  'GET /ecard-plugin/master/plugin.min.js': open("the Pledg script for the original provider's shop plugins (static, public by nature)"),
  'GET /ecard-plugin/staging/plugin.min.js': open('the Pledg script, same bytes, at the path of a test shop'),
  'GET /sandbox/demo-shop': open('sandbox-only demo merchant page (static HTML around chipin.js)'),
  'GET /sandbox/demo-shop/shop.js': open('static script of the sandbox demo merchant page'),
  'POST /sandbox/demo-shop/purchases': open("sandbox-only demo shop's back end: creates a purchase for its own demo account only, as a shop's server would"),
  'POST /sandbox/demo-shop/verify': open("sandbox-only demo shop's back end: verifies a JWT of its own demo account's purchases, answers only valid/invalid"),
  'GET /sandbox-psp/challenge/:transaction_id': open("the sandbox PSP's 3-D Secure page, as an issuer's page is"),
  'POST /sandbox-psp/challenge/:transaction_id': open("the sandbox PSP's 3-D Secure page form"),
  'GET /psp-challenge': open("3-D Secure relay: posts a PSP's form to the issuer; the URL carries the form sealed with our key (test/psp/challenge-relay.test.ts)"),
  'POST /api/psp/:psa_id/notifications': open(
    "inbound PSP notifications: authenticated by the PSP's signature, checked by the PSP account's connector (test/http/back-mode.test.ts)",
  ),
  'GET /api/psp/:psa_id/notifications': open(
    "inbound PSP notifications sent as a GET (PayBox's RemoteMPI): the query string is the signed message, checked by the connector (test/psp/paybox-notifications.test.ts)",
  ),
  'GET /healthz': open('liveness probe'),
  'GET /readyz': open('readiness probe'),
  'GET /metrics': open('Prometheus scrape (counts only, no account data)'),
  'GET /api/openapi.json': open('the API reference (OpenAPI document)'),
  'GET /docs': open('Swagger UI of the API reference'),
  'HEAD /docs/': open('Swagger UI of the API reference'),
  'GET /docs/static/index.html': open('Swagger UI of the API reference'),
  'GET /docs/static/swagger-initializer.js': open('Swagger UI of the API reference'),
  'GET /docs/static/*': open('Swagger UI of the API reference'),
  'GET /docs/static/theme/chipin.svg': open("Chipin's icon on the API reference"),
  'GET /docs/json': open('Swagger UI of the API reference'),
  'GET /docs/yaml': open('Swagger UI of the API reference'),
};

/** A well-formed value for each path parameter (the guard must answer before any lookup). */
const PARAMS: Record<string, () => string> = {
  id: () => randomUUID(),
  purchase_uid: () => `pur_${randomUUID()}`,
  merchant_uid: () => `mer_${randomUUID()}`,
  pledge_id: () => `plg_${randomUUID()}`,
  delivery_id: () => `dlv_${randomUUID()}`,
  psa_id: () => `psa_${randomUUID()}`,
  api_key: () => `key_${randomUUID().replace(/-/g, '')}`,
  action: () => 'revoke',
  installment_id: () => randomUUID(),
  payment_id: () => randomUUID(),
  dispute_id: () => `dsp_${randomUUID()}`,
  payout_id: () => `po_${randomUUID()}`,
  export_id: () => `pex_${randomUUID()}`,
};

function concrete(url: string): string {
  return url.replace(/:([a-z_]+)/g, (_, name: string) => {
    const value = PARAMS[name];
    if (!value) throw new Error(`no sample value for path parameter :${name} (add one to PARAMS)`);
    return value();
  });
}

let iso: IsolatedDatabase;
let app: TestApp;
let receiver: Receiver;
let a: Caller;
let b: Caller;
let owned: Owned;

/** The app's routes, each with the class the table gives it (HEAD twins take their GET's). */
let swept: { method: string; url: string; auth: string | undefined; key: string; cls: RouteClass | undefined }[];

beforeAll(async () => {
  // A database of its own: the sweep moves no clock, but sets a webhook and delivers.
  iso = await isolatedDatabase();
  app = await startTestApp(NO_JOB_POLL, { db: iso.open(), delivery: TEST_DELIVERY });
  receiver = await Receiver.start();
  [a, b] = await twoMerchants(app);

  // A's objects, through the API.
  const created = await a.post('/api/merchants/v1/purchases', minimalPurchase({ client: { email: 'leader@example.com', ref: 'CUST-SWEEP' } }));
  expect(created.statusCode).toBe(201);
  const purchase = created.json() as { id: string; client: { id: string } };
  const pot = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ amount: 10_000 }))).json() as { id: string };
  const led = await a.post(`/api/sandbox/purchases/pur_${pot.id}/pay`, { card_number: CARD, pledgers: [{ email: 'ann@example.com', amount_cents: 3_000 }] });
  expect(led.statusCode).toBe(200);
  const pledge = (led.json() as { pledges: { id: string }[] }).pledges[0]!.id;
  await setWebhook(app, a, receiver.url());
  await leaderProcessed(app, a, purchase.id);
  await app.services.deliveries.worker.runDue();
  const [delivery] = await deliveries(app, a.accountId);
  const cancellable = (await a.post('/api/merchants/v1/purchases', minimalPurchase())).json() as { id: string };
  const boCancellable = (await a.post('/api/merchants/v1/purchases', minimalPurchase())).json() as { id: string };
  const newPspAccount = async (label: string) => {
    const res = await inject('POST', '/api/backoffice/psp_accounts', a.dashboard, { psp: 'sandbox', environment: 'test', label, credentials: {} });
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { id: string }).id;
  };
  // Three disputes of A's (one the sandbox helpers decide, one for each evidence route): the sandbox's
  // chargeback card opens one once captured, notified by a job.
  const disputedPurchase = async () => {
    const made = (await a.post('/api/merchants/v1/purchases', minimalPurchase({ merchant_uid: a.offer('INSTALLMENTS', 3) }))).json() as { id: string };
    expect((await a.post(`/api/sandbox/purchases/pur_${made.id}/pay`, { card_number: '4000 0000 0000 0259' })).statusCode).toBe(200);
    return made.id;
  };
  const disputed = await disputedPurchase();
  const disputedToo = await disputedPurchase();
  const disputedThird = await disputedPurchase();
  await app.services.jobs.runDue();
  const disputeOf = async (id: string) => ((await a.get(`/api/sandbox/purchases/pur_${id}/disputes`)).json() as { disputes: { id: string }[] }).disputes[0]!.id;
  owned = {
    dispute: await disputeOf(disputed),
    sandboxDispute: await disputeOf(disputedToo),
    pageDispute: await disputeOf(disputedThird),
    disputed,
    purchase: purchase.id,
    pot: pot.id,
    client: purchase.client.id,
    pledge,
    offer: a.offer('SHARED'),
    installmentsOffer: a.offer('INSTALLMENTS', 3),
    delivery: `dlv_${delivery!.id}`,
    cancellable: cancellable.id,
    boCancellable: boCancellable.id,
    pspAccount: await newPspAccount('Sweep'),
    sparePspAccount: await newPspAccount('Spare'),
  };

  const routes = registeredRoutes(app.server);
  const gets = new Set(routes.filter((r) => r.method === 'GET').map((r) => r.url));
  swept = routes.map((r) => {
    const key = `${r.method} ${r.url}`;
    const twin = r.method === 'HEAD' && !(key in ROUTES) && gets.has(r.url) ? ROUTES[`GET ${r.url}`] : undefined;
    return { ...r, key, cls: ROUTES[key] ?? twin };
  });
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await iso?.dispose();
});

function inject(method: string, url: string, authorization?: string, payload?: unknown): Promise<LightMyRequestResponse> {
  return app.server.inject({
    method: method as 'GET',
    url,
    headers: { ...(authorization ? { authorization } : {}), ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    payload: payload === undefined ? undefined : JSON.stringify(payload),
  });
}

const of = (access: RouteClass['access']) => swept.filter((r) => r.cls?.access === access);

describe('the route table', () => {
  it('lists every route of the app (a new route must be classified here)', () => {
    expect(swept.length).toBeGreaterThan(40);
    expect(swept.filter((r) => !r.cls).map((r) => r.key)).toEqual([]);
  });

  it('lists no route the app does not have', () => {
    const keys = new Set(swept.map((r) => r.key));
    expect(Object.keys(ROUTES).filter((k) => !keys.has(k))).toEqual([]);
  });

  it("classifies as bearer exactly the routes whose config says auth: 'bearer'", () => {
    expect(swept.filter((r) => r.auth === 'bearer' && r.cls?.access !== 'bearer').map((r) => r.key)).toEqual([]);
    expect(
      of('bearer')
        .filter((r) => r.auth !== 'bearer')
        .map((r) => r.key),
    ).toEqual([]);
  });

  it('gives every public route a reason, and every guarded route without an object check a reason too', () => {
    for (const [key, cls] of Object.entries(ROUTES)) {
      if (cls.access === 'public' || cls.access === 'shopper') expect(cls.reason.length, key).toBeGreaterThan(5);
      else if (!cls.tenancy) expect(cls.none?.length ?? 0, key).toBeGreaterThan(5);
    }
  });
});

describe("bearer routes (config.auth = 'bearer')", () => {
  it('answer 401 with WWW-Authenticate: Bearer error="invalid_token" without a token, or with a malformed, forged or expired one', async () => {
    const forged = new AccessTokens(randomBytes(32)).issue(a.accountId, a.merchant.api_key).token;
    const expired = new AccessTokens(app.services.config.masterKey, () => Date.now() - 3_600_000).issue(a.accountId, a.merchant.api_key).token;
    const [head, body, mac] = a.token.split('.') as [string, string, string];
    const tampered = `${head}.${body}.${mac.slice(0, -4)}${mac.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    const headers: [string, string | undefined][] = [
      ['no Authorization', undefined],
      ['malformed', 'Bearer not a token!'],
      ['wrong scheme', a.dashboard],
      ['empty', 'Bearer '],
      ['forged (another key)', `Bearer ${forged}`],
      ['tampered MAC', `Bearer ${tampered}`],
      ['expired', `Bearer ${expired}`],
    ];
    const routes = of('bearer');
    expect(routes.length).toBeGreaterThanOrEqual(13);
    for (const r of routes) {
      for (const [what, authorization] of headers) {
        const res = await inject(r.method, concrete(r.url), authorization);
        const label = `${r.key} (${what})`;
        expect(res.statusCode, label).toBe(401);
        expect(res.headers['www-authenticate'], label).toMatch(/^Bearer .*error="invalid_token"/);
      }
    }
  });

  it("answer 404 to merchant B for merchant A's object, and hide A's objects from B's listings", async () => {
    const routes = of('bearer').filter((r) => r.method !== 'HEAD');
    const checked: string[] = [];
    for (const r of routes) {
      const cls = r.cls as Extract<RouteClass, { access: 'bearer' }>;
      if (!cls.tenancy) continue;
      const { url, payload } = cls.tenancy.call(owned);
      const res = await inject(r.method, url, `Bearer ${b.token}`, payload);
      expectTenancy(cls.tenancy.expect, res, r.key);
      checked.push(r.key);
    }
    expect(checked.length).toBeGreaterThanOrEqual(9);
  });

  it('the same calls as merchant A find the object (the 404 above is not for a missing object)', async () => {
    // After the B calls: A's calls may act (abort, pay), which is why they run last.
    for (const r of of('bearer').filter((x) => x.method !== 'HEAD')) {
      const cls = r.cls as Extract<RouteClass, { access: 'bearer' }>;
      if (!cls.tenancy) continue;
      const { url, payload } = cls.tenancy.call(owned);
      const res = await inject(r.method, url, `Bearer ${a.token}`, payload);
      expect(res.statusCode, `${r.key}: ${res.body}`).toBeLessThan(500);
      expect(res.statusCode, `${r.key}: ${res.body}`).not.toBe(404);
      if (cls.tenancy.expect === 'hidden')
        expect(
          [owned.purchase, owned.pot].some((id) => res.body.includes(id)),
          `${r.key}: ${res.body}`,
        ).toBe(true);
    }
  });
});

describe('dashboard-credential routes (back office, sandbox inbox)', () => {
  it('answer 401 with a Basic challenge without credentials, with an access token instead, or with malformed ones', async () => {
    const routes = of('dashboard');
    expect(routes.length).toBeGreaterThanOrEqual(6);
    for (const r of routes) {
      const cls = r.cls as Extract<RouteClass, { access: 'dashboard' }>;
      for (const [what, authorization] of [
        ['no Authorization', undefined],
        ['an access token', `Bearer ${a.token}`],
        ['malformed Basic', 'Basic !!!'],
      ] as const) {
        const res = await inject(r.method, concrete(r.url), authorization, cls.payload);
        const label = `${r.key} (${what})`;
        expect(res.statusCode, label).toBe(401);
        expect(res.headers['www-authenticate'], label).toMatch(/^Basic realm=/);
      }
    }
  });

  it("answer 404 to merchant B's dashboard for merchant A's object, and hide A's objects from B's listings", async () => {
    const checked: string[] = [];
    for (const r of of('dashboard').filter((x) => x.method !== 'HEAD')) {
      const cls = r.cls as Extract<RouteClass, { access: 'dashboard' }>;
      if (!cls.tenancy) continue;
      const { url, payload } = cls.tenancy.call(owned);
      expectTenancy(cls.tenancy.expect, await inject(r.method, url, b.dashboard, payload), r.key);
      const mine = await inject(r.method, url, a.dashboard, payload);
      expect(mine.statusCode, `${r.key} as A: ${mine.body}`).toBeLessThan(300);
      checked.push(r.key);
    }
    expect(checked.length).toBeGreaterThanOrEqual(3);
  });
});

describe('back-office pages (session cookie)', () => {
  const page = (method: string, url: string, cookie: string | undefined, fields?: Record<string, string>) =>
    app.server.inject({
      method: method as 'GET',
      url,
      headers: { ...(cookie ? { cookie } : {}), ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      payload: method === 'POST' ? form(fields ?? {}) : undefined,
    });

  it('send the browser to the sign-in page without a session, with a forged one, or with dashboard credentials in Basic', async () => {
    const routes = of('session');
    expect(routes.length).toBeGreaterThanOrEqual(6);
    for (const r of routes) {
      for (const [what, cookie] of [
        ['no cookie', undefined],
        ['a forged cookie', `chipin_dashboard=${randomBytes(32).toString('base64url')}`],
      ] as const) {
        const res = await page(r.method, concrete(r.url), cookie);
        expect(res.statusCode, `${r.key} (${what})`).toBe(303);
        expect(res.headers.location, `${r.key} (${what})`).toBe('/dashboard/sign-in');
      }
      const basicOnly = await app.server.inject({ method: r.method as 'GET', url: concrete(r.url), headers: { authorization: a.dashboard } });
      expect(basicOnly.statusCode, `${r.key} (Basic)`).toBe(303);
    }
  });

  it("answer 404 to merchant B's session for merchant A's purchase, and hide A's purchases from B's list", async () => {
    const [sa, sb] = [await signIn(app, a.merchant), await signIn(app, b.merchant)];
    const checked: string[] = [];
    for (const r of of('session').filter((x) => x.method !== 'HEAD')) {
      const cls = r.cls as Extract<RouteClass, { access: 'session' }>;
      if (!cls.tenancy) continue;
      const { url, payload } = cls.tenancy.call(owned);
      const fields = (s: { csrf: string }) => ({ csrf: s.csrf, ...(payload as Record<string, string> | undefined) });
      expectTenancy(cls.tenancy.expect, await page(r.method, url, sb.cookie, fields(sb)), r.key);
      // A's own call succeeds: a page, or a redirect after an action (never back to the sign-in page).
      const mine = await page(r.method, url, sa.cookie, fields(sa));
      expect(mine.statusCode, `${r.key} as A: ${mine.body.slice(0, 300)}`).toBeLessThan(400);
      expect(mine.headers.location, r.key).not.toBe('/dashboard/sign-in');
      checked.push(r.key);
    }
    expect(checked.length).toBeGreaterThanOrEqual(6);
  });
});

describe("the shopper's space", () => {
  it('sends the browser to the space sign-in without a shopper session, with a forged one, or with a back-office session', async () => {
    const routes = of('shopper');
    expect(routes.length).toBeGreaterThanOrEqual(2);
    const staff = await signIn(app, a.merchant);
    for (const r of routes) {
      for (const [what, cookie] of [
        ['no cookie', undefined],
        ['a forged cookie', `chipin_space=${randomBytes(32).toString('base64url')}`],
        ['a back-office session', staff.cookie],
      ] as const) {
        const res = await app.server.inject({ method: r.method as 'GET', url: concrete(r.url), headers: cookie ? { cookie } : {} });
        expect(res.statusCode, `${r.key} (${what})`).toBe(303);
        expect(res.headers.location, `${r.key} (${what})`).toMatch(/^\/space\/sign-in/);
      }
    }
  });
});

function expectTenancy(kind: Tenancy['expect'], res: LightMyRequestResponse, key: string): void {
  if (kind === '404') {
    expect(res.statusCode, `${key}: ${res.body}`).toBe(404);
  } else {
    expect(res.statusCode, `${key}: ${res.body}`).toBeLessThan(300);
  }
  for (const id of Object.values(owned)) expect(res.body, `${key} leaks ${id}`).not.toContain(id.replace(/^[a-z]{3}_/, ''));
}
