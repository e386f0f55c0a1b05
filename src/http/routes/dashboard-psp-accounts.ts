import { actorOf, recordAudit } from '../../audit/audit-log.ts';
import { confirmDeletePage, newPspAccountPage, pspAccountsPage, type TypedAccount } from '../../dashboard/psp-accounts-page.ts';
import type { DashboardSessions } from '../../dashboard/sessions.ts';
import { messagePage } from '../../dashboard/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../../dashboard/texts.ts';
import { DEFAULT_PSP } from '../../psp/registry.ts';
import type { Services } from '../../services.ts';
import { createPspAccount, deletePspAccount, getPspAccount, listPspAccounts } from '../../use-cases/psp-accounts.ts';
import type { App } from '../types.ts';
import { formOf, refuseForm, seeOther, sendPage, signedIn } from './dashboard-support.ts';

const PAGE = { schema: { hide: true } };

/**
 * Back office: the account's PSP accounts (back mode), through the use cases of
 * `/api/backoffice/psp_accounts`: the same checks (fields, patterns, the credentials verified
 * with the PSP unless unticked), sealed at rest, secrets never shown again. Admins only (the
 * `/dashboard/psp-accounts` prefix, src/dashboard/roles.ts).
 */
export function registerDashboardPspAccounts(app: App, services: Services, sessions: DashboardSessions): void {
  const deps = services.pspAccounts;
  /** The connectors a merchant can add an account of: every one but the built-in sandbox, which needs none. */
  const connectors = () => services.psps.definitions.filter((d) => d.name !== DEFAULT_PSP);

  app.get('/dashboard/psp-accounts', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const done = (request.query as Record<string, unknown>).done;
    const notice = done === 'created' || done === 'deleted' ? done : undefined;
    return sendPage(reply, 200, pspAccountsPage(ctx.chrome, await listPspAccounts(deps, ctx.session.accountId), connectors(), notice));
  });

  app.get('/dashboard/psp-accounts/new', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const def = connectors().find((d) => d.name === (request.query as Record<string, unknown>).psp);
    if (!def) return sendPage(reply, 404, messagePage(ctx.chrome.lang, DASHBOARD_TEXT[ctx.chrome.lang].notFoundTitle, DASHBOARD_TEXT[ctx.chrome.lang].unknownPsp));
    return sendPage(reply, 200, newPspAccountPage(ctx.chrome, def));
  });

  app.post('/dashboard/psp-accounts', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const fields = formOf(request);
    if (!sessions.csrfMatches(session, fields.csrf)) return refuseForm(reply, chrome.lang);
    const def = connectors().find((d) => d.name === fields.psp);
    if (!def) return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.unknownPsp));
    // Only the connector's own fields, and only those filled in: an empty optional field is absent.
    const credentials: Record<string, string> = {};
    for (const f of def.credentialFields) {
      const v = fields[`credentials.${f.name}`];
      if (v !== undefined && v !== '') credentials[f.name] = v;
    }
    const typed: TypedAccount = {
      label: fields.label,
      environment: fields.environment,
      endpoint_url: fields.endpoint_url,
      credentials: Object.fromEntries(def.credentialFields.filter((f) => !f.secret && credentials[f.name] !== undefined).map((f) => [f.name, credentials[f.name]!])),
    };
    const outcome = await createPspAccount(
      deps,
      session.accountId,
      { psp: def.name, environment: fields.environment ?? '', label: fields.label ?? '', credentials, endpoint_url: fields.endpoint_url ? fields.endpoint_url : null },
      { verify: fields.verify === 'yes' },
    );
    switch (outcome.kind) {
      case 'ok':
        await recordAudit(services.db, { accountId: session.accountId, actor: actorOf(session), action: 'psp_account_create', subject: outcome.account.id, details: { psp: def.name, environment: outcome.account.environment } });
        request.log.info({ account_id: session.accountId, psp_account_id: outcome.account.id, psp: def.name }, 'PSP account created (back office)');
        return seeOther(reply, '/dashboard/psp-accounts?done=created');
      case 'invalid':
        return sendPage(reply, 400, newPspAccountPage(chrome, def, typed, { field: outcome.field, message: outcome.message }));
      case 'rejected':
        return sendPage(reply, 422, newPspAccountPage(chrome, def, typed, { field: 'credentials', message: t.pspRejected(outcome.message) }));
      case 'unreachable':
        return sendPage(reply, 502, newPspAccountPage(chrome, def, typed, { field: 'credentials', message: t.pspUnreachable }));
      case 'not_found':
        return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.unknownPsp));
    }
  });

  app.post('/dashboard/psp-accounts/:psa_id/delete', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const fields = formOf(request);
    if (!sessions.csrfMatches(session, fields.csrf)) return refuseForm(reply, chrome.lang);
    const id = (request.params as { psa_id: string }).psa_id;
    // Another account's PSP account is not found, as an unknown one is.
    const account = await getPspAccount(deps, session.accountId, id);
    if (!account) return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.pspAccountNotFound));
    if (fields.confirm !== 'yes') return sendPage(reply, 200, confirmDeletePage(chrome, account));
    const outcome = await deletePspAccount(deps, session.accountId, id);
    if (outcome.kind === 'not_found') return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.pspAccountNotFound));
    if (outcome.kind === 'in_use') {
      return sendPage(reply, 409, pspAccountsPage(chrome, await listPspAccounts(deps, session.accountId), connectors(), undefined, t.pspAccountInUse(outcome.offers, outcome.payments)));
    }
    await recordAudit(services.db, { accountId: session.accountId, actor: actorOf(session), action: 'psp_account_delete', subject: account.id, details: { psp: account.psp } });
    request.log.info({ account_id: session.accountId, psp_account_id: account.id }, 'PSP account deleted (back office)');
    return seeOther(reply, '/dashboard/psp-accounts?done=deleted');
  });
}
