import { AccountError } from '../../../../accounts/accounts.ts';
import { actorOf } from '../../../../audit/audit-log.ts';
import { toPublicId } from '../../../../domain/ids.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { recordStaffAction } from '../../../../use-cases/back-office/audit-trail.ts';
import type { App } from '../../../types.ts';
import { confirmKeyPage, developersPage } from '../../pages/developers-page.ts';
import { messagePage } from '../../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { seeOther, sendPage, signedInForm } from '../support.ts';
import { developersView, PAGE } from './support.ts';

/**
 * API keys: POST /dashboard/developers/keys (create) and …/keys/{api_key}/{rotate|revoke}, the
 * same Accounts methods as `chipin key create` and `key revoke`. The secret is in the answer to
 * the create or rotate post only (never logged, never on a later page).
 */
export function registerDevelopersKeys(app: App, services: Services, sessions: DashboardSessions): void {
  app.post('/dashboard/developers/keys', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const key = await services.accounts.createKey(toPublicId('acc', session.accountId));
    await recordStaffAction(services.db, { accountId: session.accountId, actor: actorOf(session), action: 'api_key_create', subject: key.api_key });
    request.log.info({ account_id: session.accountId, api_key: key.api_key }, 'API key created (back office)');
    return sendPage(reply, 200, developersPage(chrome, await developersView(services, session.accountId, { newKey: { apiKey: key.api_key, apiSecret: key.api_secret } })));
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
      return sendPage(
        reply,
        200,
        developersPage(chrome, await developersView(services, session.accountId, { newKey: { apiKey: key.api_key, apiSecret: key.api_secret, replaced: apiKey } })),
      );
    } catch (err) {
      // Revoked in between (another tab, the CLI): nothing left to do on it.
      if (!(err instanceof AccountError)) throw err;
      return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.keyNotFound));
    }
  });
}
