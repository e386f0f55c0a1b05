import { AccountError } from '../../../accounts/accounts.ts';
import { actorOf, webhookAudit, webhookTestAudit } from '../../../audit/audit-log.ts';
import { recordStaffAction } from '../../../use-cases/audit-trail.ts';
import { confirmKeyPage, developersPage, type DevelopersView } from '../pages/developers-page.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import { messagePage } from '../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { WebhookSettingsError } from '../../../delivery/endpoints.ts';
import { decodeDeliveryCursor, encodeDeliveryCursor, parseDeliveryUid, toDeliveryUid, type DeliveryCursor } from '../../../delivery/delivery.ts';
import { deliveryPage } from '../pages/delivery-page.ts';
import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import type { Services } from '../../../services.ts';
import type { App } from '../../types.ts';
import { seeOther, sendPage, signedIn, signedInForm } from './support.ts';

const PAGE = { schema: { hide: true } };
const SHOWN_DELIVERIES = 20;

/**
 * Back office: the Developers page. The webhook endpoint (URL, events) and the delivery log with
 * replay, through the same Deliveries service as `PUT /api/backoffice/webhook` and
 * `POST /api/backoffice/deliveries/{id}/replay`. The signing secret and token are shown once,
 * in the answer to the save, never on the page afterwards (no secret sits in a page one reloads).
 */
export function registerDashboardDevelopers(app: App, services: Services, sessions: DashboardSessions): void {
  /** The page's data; `before` pages the delivery log (the API's keyset cursor), one more row read to know if older ones exist. */
  async function view(accountId: string, extra: Partial<DevelopersView> = {}, before?: DeliveryCursor): Promise<DevelopersView> {
    const [webhook, page, keys] = await Promise.all([
      services.deliveries.getWebhook(accountId),
      services.deliveries.list(accountId, { limit: SHOWN_DELIVERIES + 1, ...(before ? { before } : {}) }),
      services.accounts.listKeys(accountId),
    ]);
    const deliveries = page.slice(0, SHOWN_DELIVERIES);
    const last = deliveries.at(-1);
    const olderHref = page.length > SHOWN_DELIVERIES && last ? `/dashboard/developers?before=${encodeDeliveryCursor(last)}#deliveries` : undefined;
    return { webhook, deliveries, keys, ...(olderHref ? { olderHref } : {}), paged: before !== undefined, ...extra };
  }

  app.get('/dashboard/developers', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const t = DASHBOARD_TEXT[ctx.chrome.lang];
    const query = request.query as Record<string, unknown>;
    const revoked = typeof query.revoked === 'string' && parsePublicId('key', query.revoked) ? query.revoked : undefined;
    const notice = query.done === 'replay' ? 'replayed' : revoked ? { revoked } : undefined;
    const before = typeof query.before === 'string' ? decodeDeliveryCursor(query.before) : undefined;
    if (query.before !== undefined && !before) return sendPage(reply, 400, messagePage(ctx.chrome.lang, t.notFoundTitle, t.badDeliveryCursor));
    return sendPage(reply, 200, developersPage(ctx.chrome, await view(ctx.session.accountId, { notice }, before)));
  });

  // One delivery with its attempt log (`GET /api/backoffice/deliveries/{id}`'s read); another account's is a 404.
  app.get('/dashboard/developers/deliveries/:delivery_id', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const t = DASHBOARD_TEXT[ctx.chrome.lang];
    const id = parseDeliveryUid((request.params as { delivery_id: string }).delivery_id);
    const delivery = id ? await services.deliveries.find(ctx.session.accountId, id) : undefined;
    if (!delivery) return sendPage(reply, 404, messagePage(ctx.chrome.lang, t.notFoundTitle, t.deliveryNotFound));
    return sendPage(reply, 200, deliveryPage(ctx.chrome, delivery));
  });

  app.post('/dashboard/developers/webhook', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form } = ctx;
    // Checkboxes: one value per ticked box (the form parser keeps a repeated field as an array).
    const raw = (request.body as Record<string, unknown> | undefined)?.events;
    const events = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String);
    const url = (form.url ?? '').trim();
    const rotate = form.rotate === '1';
    try {
      const settings = await services.deliveries.setWebhook(session.accountId, { url, events, rotate });
      await recordStaffAction(services.db, webhookAudit(session.accountId, actorOf(session), settings));
      request.log.info({ account_id: session.accountId, events: settings.events, rotated: rotate }, 'webhook endpoint set (back office)');
      const saved = settings.issued
        ? { issued: true as const, token: settings.token, secret: settings.secret, previousSecretUntil: settings.previousSecretUntil }
        : { issued: false as const };
      return sendPage(reply, 200, developersPage(chrome, await view(session.accountId, { saved })));
    } catch (err) {
      if (!(err instanceof WebhookSettingsError)) throw err;
      // Said in the page's language, naming the field (url or events); nothing was changed.
      const error = DASHBOARD_TEXT[chrome.lang].webhookRefusal(err.rule);
      return sendPage(reply, 400, developersPage(chrome, await view(session.accountId, { error, typed: { url, events } })));
    }
  });

  app.post('/dashboard/developers/webhook/test', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const test = await services.deliveries.sendTest(session.accountId);
    if (test.kind === 'sent') await recordStaffAction(services.db, webhookTestAudit(session.accountId, actorOf(session), test));
    return sendPage(reply, test.kind === 'sent' ? 200 : 409, developersPage(chrome, await view(session.accountId, { test })));
  });

  app.post('/dashboard/developers/deliveries/:delivery_id/replay', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const id = parseDeliveryUid((request.params as { delivery_id: string }).delivery_id);
    const result = id ? await services.deliveries.replay(session.accountId, id) : { ok: false as const, reason: 'not_found' as const };
    if (!result.ok && result.reason === 'not_found') return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.deliveryNotFound));
    if (!result.ok) return sendPage(reply, 409, developersPage(chrome, await view(session.accountId, { error: t.replayDisabled })));
    await recordStaffAction(services.db, { accountId: session.accountId, actor: actorOf(session), action: 'delivery_replay', subject: toDeliveryUid(result.delivery.id) });
    request.log.info({ account_id: session.accountId, delivery_id: toDeliveryUid(result.delivery.id) }, 'delivery replay requested (back office)');
    return seeOther(reply, '/dashboard/developers?done=replay');
  });

  // API keys: the same Accounts methods as `chipin key create` and `key revoke`. The secret is in
  // the answer to the create or rotate post only (never logged, never on a later page).
  app.post('/dashboard/developers/keys', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const key = await services.accounts.createKey(toPublicId('acc', session.accountId));
    await recordStaffAction(services.db, { accountId: session.accountId, actor: actorOf(session), action: 'api_key_create', subject: key.api_key });
    request.log.info({ account_id: session.accountId, api_key: key.api_key }, 'API key created (back office)');
    return sendPage(reply, 200, developersPage(chrome, await view(session.accountId, { newKey: { apiKey: key.api_key, apiSecret: key.api_secret } })));
  });

  app.post('/dashboard/developers/keys/:api_key/:action', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form: fields } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const { api_key: apiKey, action } = request.params as { api_key: string; action: string };
    if (action !== 'rotate' && action !== 'revoke') return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.keyNotFound));
    const live = (await services.accounts.listKeys(session.accountId)).find((k) => k.apiKey === apiKey && !k.revokedAt);
    // Another account's key is not found, as an unknown or already revoked one is.
    if (!live) return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.keyNotFound));
    if (fields.confirm !== 'yes') return sendPage(reply, 200, confirmKeyPage(chrome, apiKey, action));
    try {
      if (action === 'revoke') {
        await services.accounts.revokeKey(apiKey, session.accountId);
        await services.revokedKeys.refresh(); // this process stops its tokens now, the others within a refresh
        await recordStaffAction(services.db, { accountId: session.accountId, actor: actorOf(session), action: 'api_key_revoke', subject: apiKey });
        request.log.info({ account_id: session.accountId, api_key: apiKey }, 'API key revoked (back office)');
        return seeOther(reply, `/dashboard/developers?revoked=${encodeURIComponent(apiKey)}`);
      }
      const key = await services.accounts.rotateKey(apiKey, session.accountId);
      await services.revokedKeys.refresh();
      await recordStaffAction(services.db, { accountId: session.accountId, actor: actorOf(session), action: 'api_key_rotate', subject: apiKey, details: { new_key: key.api_key } });
      request.log.info({ account_id: session.accountId, api_key: key.api_key, revoked: apiKey }, 'API key rotated (back office)');
      return sendPage(reply, 200, developersPage(chrome, await view(session.accountId, { newKey: { apiKey: key.api_key, apiSecret: key.api_secret, replaced: apiKey } })));
    } catch (err) {
      // Revoked in between (another tab, the CLI): nothing left to do on it.
      if (!(err instanceof AccountError)) throw err;
      return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.keyNotFound));
    }
  });
}
