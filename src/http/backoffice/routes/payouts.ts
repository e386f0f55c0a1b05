import { actorOf } from '../../../audit/audit-log.ts';
import { parsePublicId } from '../../../domain/ids.ts';
import type { App } from '../../types.ts';
import type { Services } from '../../../services.ts';
import { readBankDetails, setBankDetails } from '../../../use-cases/payouts/payout-bank-details.ts';
import { payoutLinesOf, payoutList, payoutOf } from '../../../use-cases/payouts/payout-list.ts';
import { merchantBalance } from '../../../use-cases/payouts/payouts.ts';
import { payoutPage, payoutsPage, type BankDetailsRefusal, type PayoutsView } from '../pages/payouts-page.ts';
import { messagePage } from '../pages/sign-in-page.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { sendPage, signedIn, signedInForm } from './support.ts';
import { bankDetailsDeps } from '../bank-details-deps.ts';

const PAGE = { schema: { hide: true } };
/** Payouts the list shows, and lines a payout's page shows, at most (the API and the CSV have them all). */
const PAGE_PAYOUTS = 100;
const PAGE_LINES = 1000;

/**
 * Back office: the balance and payouts of transfer mode and the bank details they are paid to
 * (admins, docs/back-office.md#payouts). A refused form answers 400 with the page and the message
 * naming the field; another account's payout is a 404.
 */
export function registerDashboardPayouts(app: App, services: Services, sessions: DashboardSessions): void {
  const deps = bankDetailsDeps(services, app.log);

  async function viewOf(accountId: string): Promise<PayoutsView> {
    const [balance, bankDetails, payouts] = [
      await merchantBalance(services.reads, accountId, services.clock.now()),
      await readBankDetails(deps, accountId),
      await payoutList(services.reads, accountId, PAGE_PAYOUTS),
    ];
    return { balances: balance.currencies, bankDetails, payouts, shown: PAGE_PAYOUTS };
  }

  app.get('/dashboard/payouts', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    return sendPage(reply, 200, payoutsPage(ctx.chrome, await viewOf(ctx.session.accountId)));
  });

  app.post('/dashboard/payouts/bank-details', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form } = ctx;
    const typed = { holder_name: (form.holder_name ?? '').slice(0, 200), iban: (form.iban ?? '').slice(0, 64), bic: (form.bic ?? '').slice(0, 32) };
    // The password asked again (as a password change does): a session left open does not divert the payouts.
    if (!(await services.accounts.dashboardUser(session.email, form.current_password ?? ''))) {
      const refusal: BankDetailsRefusal = { field: 'current_password', error: DASHBOARD_TEXT[chrome.lang].payouts.wrongPassword, typed };
      return sendPage(reply, 400, payoutsPage(chrome, await viewOf(session.accountId), refusal));
    }
    const outcome = await setBankDetails(deps, session.accountId, actorOf(session), typed);
    if (outcome.kind === 'invalid') {
      // The rule broken, said in the page's language (the API's message stays English).
      const refusal: BankDetailsRefusal = { field: outcome.field, error: DASHBOARD_TEXT[chrome.lang].payouts.problem(outcome.problem), typed };
      return sendPage(reply, 400, payoutsPage(chrome, await viewOf(session.accountId), refusal));
    }
    return sendPage(reply, 200, payoutsPage(chrome, await viewOf(session.accountId), { saved: outcome.changed }));
  });

  app.get('/dashboard/payouts/:id', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const id = parsePublicId('po', (request.params as { id: string }).id);
    const payout = id && (await payoutOf(services.reads, ctx.session.accountId, id));
    if (!payout) {
      const t = DASHBOARD_TEXT[ctx.chrome.lang];
      return sendPage(reply, 404, messagePage(ctx.chrome.lang, t.notFoundTitle, t.payouts.notFound));
    }
    const lines = await payoutLinesOf(services.reads, ctx.session.accountId, payout.id, null, PAGE_LINES + 1);
    return sendPage(reply, 200, payoutPage(ctx.chrome, payout, lines.slice(0, PAGE_LINES), lines.length > PAGE_LINES ? PAGE_LINES : false));
  });
}
