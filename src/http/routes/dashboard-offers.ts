import { actorOf, recordAudit } from '../../audit/audit-log.ts';
import { offerPage, offersPage } from '../../dashboard/offers-page.ts';
import type { DashboardSessions } from '../../dashboard/sessions.ts';
import { messagePage } from '../../dashboard/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../../dashboard/texts.ts';
import type { Services } from '../../services.ts';
import { bindOfferToPspAccount, listPspAccounts } from '../../use-cases/psp-accounts.ts';
import type { App } from '../types.ts';
import { formOf, refuseForm, seeOther, sendPage, signedIn } from './dashboard-support.ts';

const PAGE = { schema: { hide: true } };

/**
 * Back office: the account's offers, and the PSP account each pays through, chosen with
 * `PATCH /api/backoffice/offers/{merchant_uid}`'s use case (bindOfferToPspAccount).
 */
export function registerDashboardOffers(app: App, services: Services, sessions: DashboardSessions): void {
  const deps = services.pspAccounts;

  /** Read fresh: the cache may hold terms another process changed. */
  async function offersOf(accountId: string) {
    services.offers.forget(accountId);
    return services.offers.list(accountId);
  }

  app.get('/dashboard/offers', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const accountId = ctx.session.accountId;
    const [offers, accounts] = await Promise.all([offersOf(accountId), listPspAccounts(deps, accountId)]);
    return sendPage(reply, 200, offersPage(ctx.chrome, offers, accounts));
  });

  app.get('/dashboard/offers/:merchant_uid', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const uid = (request.params as { merchant_uid: string }).merchant_uid;
    services.offers.forget(session.accountId);
    const offer = await services.offers.find(session.accountId, uid);
    if (!offer) return sendPage(reply, 404, messagePage(chrome.lang, DASHBOARD_TEXT[chrome.lang].notFoundTitle, DASHBOARD_TEXT[chrome.lang].offerNotFound));
    const saved = (request.query as Record<string, unknown>).done === 'saved';
    return sendPage(reply, 200, offerPage(chrome, offer, await listPspAccounts(deps, session.accountId), { saved }));
  });

  app.post('/dashboard/offers/:merchant_uid', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const fields = formOf(request);
    if (!sessions.csrfMatches(session, fields.csrf)) return refuseForm(reply, chrome.lang);
    const uid = (request.params as { merchant_uid: string }).merchant_uid;
    // The empty option is the built-in sandbox PSP, as `null` is in the API.
    const outcome = await bindOfferToPspAccount(deps, session.accountId, uid, fields.psp_account_id ? fields.psp_account_id : null);
    if (outcome.kind === 'ok') {
      await recordAudit(services.db, { accountId: session.accountId, actor: actorOf(session), action: 'offer_psp_account', subject: uid, details: { psp_account_id: outcome.offer.psp_account_id } });
      request.log.info({ account_id: session.accountId, merchant_uid: uid, psp_account_id: outcome.offer.psp_account_id }, 'offer PSP account set (back office)');
      return seeOther(reply, `/dashboard/offers/${encodeURIComponent(uid)}?done=saved`);
    }
    if (outcome.kind === 'not_found' && outcome.what === 'offer') return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.offerNotFound));
    const offer = await services.offers.find(session.accountId, uid);
    if (!offer) return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.offerNotFound));
    const error = outcome.kind === 'invalid' ? `${outcome.field}: ${outcome.message}` : t.pspAccountNotFound;
    return sendPage(reply, 400, offerPage(chrome, offer, await listPspAccounts(deps, session.accountId), { error }));
  });
}
