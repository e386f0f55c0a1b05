import { actorOf, webhookAudit, webhookTestAudit } from '../../../../audit/audit-log.ts';
import { WebhookSettingsError } from '../../../../delivery/endpoints.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { recordStaffAction } from '../../../../use-cases/back-office/audit-trail.ts';
import type { App } from '../../../types.ts';
import { developersPage } from '../../pages/developers-page.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { sendPage, signedInForm } from '../support.ts';
import { developersView, PAGE } from './support.ts';

/**
 * POST /dashboard/developers/webhook (the endpoint's URL and events; the signing secret and token
 * in this answer only) and …/webhook/test (a test event sent to it).
 */
export function registerDevelopersWebhook(app: App, services: Services, sessions: DashboardSessions): void {
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
      return sendPage(reply, 200, developersPage(chrome, await developersView(services, session.accountId, { saved })));
    } catch (err) {
      if (!(err instanceof WebhookSettingsError)) throw err;
      // Said in the page's language, naming the field (url or events); nothing was changed.
      const error = DASHBOARD_TEXT[chrome.lang].webhookRefusal(err.rule);
      return sendPage(reply, 400, developersPage(chrome, await developersView(services, session.accountId, { error, typed: { url, events } })));
    }
  });

  app.post('/dashboard/developers/webhook/test', PAGE, async (request, reply) => {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const test = await services.deliveries.sendTest(session.accountId);
    if (test.kind === 'sent') await recordStaffAction(services.db, webhookTestAudit(session.accountId, actorOf(session), test));
    return sendPage(reply, test.kind === 'sent' ? 200 : 409, developersPage(chrome, await developersView(services, session.accountId, { test })));
  });
}
