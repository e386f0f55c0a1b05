import { registerBackofficeDeliveries } from '../backoffice/api/deliveries.ts';
import { registerBackofficeReports } from '../backoffice/api/reports.ts';
import { registerBackofficePayouts } from '../backoffice/api/payouts.ts';
import { registerBackofficeRiskDecisions } from '../backoffice/api/risk-decisions.ts';
import { registerBackofficeReconciliation } from '../backoffice/api/reconciliation.ts';
import { registerBackofficeDisputes } from '../backoffice/api/disputes.ts';
import { registerBackofficeOffers } from '../backoffice/api/offers.ts';
import { registerBackofficePsps } from '../backoffice/api/psps.ts';
import { registerBackofficePurchases } from '../backoffice/api/purchases.ts';
import { registerBackofficeRiskRules } from '../backoffice/api/risk-rules.ts';
import { registerBackofficeRiskScoringHook } from '../backoffice/api/risk-scoring-hook.ts';
import { registerBackofficeWebhook } from '../backoffice/api/webhook.ts';
import { registerDashboardAccount } from '../backoffice/routes/account.ts';
import { registerDashboardSettings } from '../backoffice/routes/settings.ts';
import { registerDashboardReconciliation } from '../backoffice/routes/reconciliation.ts';
import { registerDashboardRiskRules } from '../backoffice/routes/risk-rules.ts';
import { registerDashboardReports } from '../backoffice/routes/reports.ts';
import { registerDashboardPayouts } from '../backoffice/routes/payouts.ts';
import { registerDashboardOperator } from '../backoffice/routes/operator.ts';
import { registerDashboardDevelopers } from '../backoffice/routes/developers.ts';
import { registerDashboardHome } from '../backoffice/routes/home.ts';
import { registerDashboardInvitation } from '../backoffice/routes/invitation.ts';
import { registerDashboardOffers } from '../backoffice/routes/offers.ts';
import { registerDashboardPspAccounts } from '../backoffice/routes/psp-accounts.ts';
import { registerDashboardPurchases } from '../backoffice/routes/purchases.ts';
import { registerDashboardDisputes } from '../backoffice/routes/disputes.ts';
import { registerDashboardSession } from '../backoffice/routes/session.ts';
import { registerDashboardTeam } from '../backoffice/routes/team.ts';
import { DashboardSessions } from '../../staff/sessions.ts';
import type { Services } from '../../services.ts';
import { DashboardGuard } from '../dashboard-guard.ts';
import type { App } from '../types.ts';
import { registerAssets } from './hosted-pages/assets.ts';
import { registerCheckout } from './hosted-pages/checkout.ts';
import { registerEcardPlugin } from './hosted-pages/ecard-plugin.ts';
import { registerPledgePages } from './hosted-pages/pledge.ts';
import { registerDirectCall } from './hosted-pages/purchase.ts';
import { registerPspChallenge } from './hosted-pages/psp-challenge.ts';
import { registerSdk } from './hosted-pages/sdk.ts';
import { registerV1Clients } from './merchant-v1/clients.ts';
import { registerEligibility } from './merchant-v1/eligibility.ts';
import { registerV1Purchases } from './merchant-v1/purchases.ts';
import { registerV1Refunds } from './merchant-v1/refunds.ts';
import { registerHealth } from './platform/health.ts';
import { registerOpenApi } from './platform/openapi.ts';
import { registerPspNotifications } from './psp/notifications.ts';
import { registerSandboxClock } from './sandbox/clock.ts';
import { registerSandboxDemoShop } from './sandbox/demo-shop.ts';
import { registerSandboxDisputes } from './sandbox/disputes.ts';
import { registerSandboxInbox } from './sandbox/inbox.ts';
import { registerSandboxPayments } from './sandbox/payments.ts';
import { registerSandboxPsp } from './sandbox/psp.ts';
import { registerShopperPay } from './shopper-space/pay.ts';
import { registerShopperPurchases } from './shopper-space/purchases.ts';
import { registerShopperSignIn } from './shopper-space/sign-in.ts';
import { registerAbort } from './token-api/abort.ts';
import { registerCreditByTransfer } from './token-api/credit-by-transfer.ts';
import { registerPaymentByTransfer } from './token-api/payment-by-transfer.ts';
import { registerRelease } from './token-api/release.ts';
import { registerPurchaseLink } from './token-api/purchase-link.ts';
import { registerSimulateSchedule } from './token-api/simulate-schedule.ts';
import { registerToken } from './token-api/token.ts';
import { registerTriggerCapture } from './token-api/trigger-capture.ts';
import { registerWhoami } from './token-api/whoami.ts';

/** Every route of the service, in one place. */
export function registerRoutes(app: App, services: Services): void {
  registerHealth(app, services);
  registerOpenApi(app);
  registerToken(app, services);
  registerWhoami(app);
  registerV1Purchases(app, services);
  registerV1Clients(app, services);
  registerV1Refunds(app, services);
  registerEligibility(app, services);
  registerPurchaseLink(app, services);
  registerAbort(app, services);
  registerRelease(app, services);
  registerCreditByTransfer(app, services);
  registerPaymentByTransfer(app, services);
  registerTriggerCapture(app, services);
  // Dashboard credentials (back office, its pages, sandbox inbox page): ONE guard, so that one
  // failure budget per user and per address covers every route that accepts them (the sign-in
  // form included). The back-office API also takes the pages' session cookie.
  const sessions = new DashboardSessions(services.db, services.config.masterKey);
  const dashboard = new DashboardGuard(services.accounts, services.authBudgets, sessions, new URL(services.config.publicUrl).origin);
  // Before any body is read or any SQL runs: a write with Basic credentials sent by another site's
  // page (docs/security.md#cross-site-writes-with-basic-credentials), then the role rule.
  app.addHook('onRequest', async (request) => {
    dashboard.refuseCrossSiteBasicWrites(request);
    await dashboard.refuseSupportOnAdminRoutes(request);
  });
  registerBackofficeWebhook(app, services, dashboard);
  registerBackofficeDeliveries(app, services, dashboard);
  registerBackofficePurchases(app, services, dashboard);
  registerBackofficePsps(app, services, dashboard);
  registerBackofficeOffers(app, services, dashboard);
  registerBackofficeRiskRules(app, services, dashboard);
  registerBackofficeRiskScoringHook(app, services, dashboard);
  registerBackofficeRiskDecisions(app, services, dashboard);
  registerBackofficeReports(app, services, dashboard);
  registerBackofficePayouts(app, services, dashboard);
  registerBackofficeReconciliation(app, services, dashboard);
  registerBackofficeDisputes(app, services, dashboard);
  registerDashboardSession(app, services, dashboard, sessions);
  registerDashboardInvitation(app, services, dashboard, sessions);
  registerDashboardHome(app, services, sessions);
  registerDashboardPurchases(app, services, sessions);
  registerDashboardDisputes(app, services, sessions);
  registerDashboardDevelopers(app, services, sessions);
  registerDashboardTeam(app, services, sessions);
  registerDashboardOffers(app, services, sessions);
  registerDashboardPspAccounts(app, services, sessions);
  registerDashboardAccount(app, services, sessions);
  registerDashboardSettings(app, services, sessions);
  registerDashboardReconciliation(app, services, sessions);
  registerDashboardRiskRules(app, services, sessions);
  registerDashboardReports(app, services, sessions);
  registerDashboardPayouts(app, services, sessions);
  registerDashboardOperator(app, services, sessions);
  registerPspNotifications(app, services);
  registerPspChallenge(app, services);
  registerSimulateSchedule(app, services);
  registerCheckout(app, services);
  registerDirectCall(app, services);
  registerPledgePages(app, services);
  registerShopperSignIn(app, services);
  registerShopperPurchases(app, services);
  registerShopperPay(app, services);
  registerAssets(app);
  registerSdk(app);
  registerEcardPlugin(app);
  // The sandbox PSP's 3-D Secure page: never in production, which takes no payment on the sandbox PSP.
  if (services.config.env === 'sandbox') registerSandboxPsp(app, services);
  // Sandbox helpers are not served at all in production.
  if (services.config.env === 'sandbox') {
    registerSandboxInbox(app, services, dashboard, sessions);
    registerSandboxPayments(app, services);
    registerSandboxDemoShop(app, services);
    registerSandboxDisputes(app, services);
  }
  if (services.sandboxClock) registerSandboxClock(app, services, services.sandboxClock);
}
