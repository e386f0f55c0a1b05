import { actorOf } from '../../../audit/audit-log.ts';
import { recordStaffAction } from '../../../use-cases/audit-trail.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Chrome } from '../pages/layout.ts';
import { confirmDeletePage, newPspAccountPage, pspAccountPage, pspAccountsPage, type TypedAccount } from '../pages/psp-accounts-page.ts';
import { parsePublicId, toPublicId } from '../../../domain/ids.ts';
import { pspNotificationUrl } from '../../../domain/links.ts';
import type { ConnectorDefinition } from '../../../psp/definition.ts';
import type { DashboardSessions } from '../../../staff/sessions.ts';
import { messagePage } from '../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { DEFAULT_PSP } from '../../../psp/registry.ts';
import type { Services } from '../../../services.ts';
import { createPspAccount, deletePspAccount, getPspAccount, listPspAccounts, updatePspAccount, type PspAccountView } from '../../../use-cases/psp-accounts.ts';
import type { App } from '../../types.ts';
import { seeOther, sendPage, signedIn, signedInForm } from './support.ts';

const PAGE = { schema: { hide: true } };

/**
 * Back office: the account's PSP accounts (back mode), through the use cases of
 * `/api/backoffice/psp_accounts`: the same checks (fields, patterns, the credentials verified
 * with the PSP unless unticked), sealed at rest, secrets never shown again. Admins only (the
 * `/dashboard/psp-accounts` prefix, src/http/backoffice/roles.ts).
 */
export function registerDashboardPspAccounts(app: App, services: Services, sessions: DashboardSessions): void {
  const deps = services.pspAccounts;
  /** The connectors a merchant can add an account of: every one but the built-in sandbox, which needs none. */
  const connectors = () => services.psps.definitions.filter((d) => d.name !== DEFAULT_PSP);

  app.get('/dashboard/psp-accounts', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const done = (request.query as Record<string, unknown>).done;
    const notice = done === 'deleted' ? done : undefined;
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
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome, form: fields } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const def = connectors().find((d) => d.name === fields.psp);
    if (!def) return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.unknownPsp));
    const { credentials, typed } = typedAccount(def, fields);
    const outcome = await createPspAccount(
      deps,
      session.accountId,
      { psp: def.name, environment: fields.environment ?? '', label: fields.label ?? '', credentials, endpoint_url: fields.endpoint_url ? fields.endpoint_url : null },
      { verify: fields.verify === 'yes' },
    );
    switch (outcome.kind) {
      case 'ok':
        await recordStaffAction(services.db, {
          accountId: session.accountId,
          actor: actorOf(session),
          action: 'psp_account_create',
          subject: outcome.account.id,
          details: { psp: def.name, environment: outcome.account.environment },
        });
        request.log.info({ account_id: session.accountId, psp_account_id: outcome.account.id, psp: def.name }, 'PSP account created (back office)');
        // To the account's page: it shows the notification URL to set at the PSP, and what the PSP gives for it can be added there.
        return seeOther(reply, `/dashboard/psp-accounts/${encodeURIComponent(outcome.account.id)}?done=created`);
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

  /**
   * What every form on one PSP account starts with: signed in, the CSRF token, the account's own
   * PSP account (another account's is not found, as an unknown one is). Undefined once answered.
   */
  async function ownAccountForm(request: FastifyRequest, reply: FastifyReply) {
    const ctx = await signedInForm(services, sessions, request, reply);
    if (!ctx) return undefined;
    const { session, chrome, form: fields } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const id = (request.params as { psa_id: string }).psa_id;
    const account = await getPspAccount(deps, session.accountId, id);
    if (!account) {
      sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.pspAccountNotFound));
      return undefined;
    }
    return { session, chrome, t, fields, id, account };
  }

  app.post('/dashboard/psp-accounts/:psa_id/delete', PAGE, async (request, reply) => {
    const own = await ownAccountForm(request, reply);
    if (!own) return reply;
    const { session, chrome, t, fields, id, account } = own;
    if (fields.confirm !== 'yes') return sendPage(reply, 200, confirmDeletePage(chrome, account));
    const outcome = await deletePspAccount(deps, session.accountId, id);
    if (outcome.kind === 'not_found') return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.pspAccountNotFound));
    if (outcome.kind === 'in_use') {
      return sendPage(
        reply,
        409,
        pspAccountsPage(chrome, await listPspAccounts(deps, session.accountId), connectors(), undefined, t.pspAccountInUse(outcome.offers, outcome.payments)),
      );
    }
    await recordStaffAction(services.db, {
      accountId: session.accountId,
      actor: actorOf(session),
      action: 'psp_account_delete',
      subject: account.id,
      details: { psp: account.psp },
    });
    request.log.info({ account_id: session.accountId, psp_account_id: account.id }, 'PSP account deleted (back office)');
    return seeOther(reply, '/dashboard/psp-accounts?done=deleted');
  });

  /** The account's page: its settings, the offers using it, the edit form, "Check again". */
  async function showAccount(reply: FastifyReply, chrome: Chrome, accountId: string, account: PspAccountView, status: number, extra: Parameters<typeof pspAccountPage>[4] = {}) {
    services.offers.forget(accountId);
    const using = (await services.offers.list(accountId)).filter((o) => o.pspAccountId !== null && toPublicId('psa', o.pspAccountId) === account.id);
    const def = services.psps.definition(account.psp);
    // No URL to set at a PSP whose notifications Chipin cannot verify: its outcomes are read from it.
    const notificationUrl = def?.takesNotifications === false ? undefined : pspNotificationUrl(services.config.publicUrl.replace(/\/+$/, ''), parsePublicId('psa', account.id)!);
    return sendPage(reply, status, pspAccountPage(chrome, account, def, using, { ...extra, ...(notificationUrl ? { notificationUrl } : {}) }));
  }

  app.get('/dashboard/psp-accounts/:psa_id', PAGE, async (request, reply) => {
    const ctx = await signedIn(services, sessions, request, reply);
    if (!ctx) return reply;
    const { session, chrome } = ctx;
    const t = DASHBOARD_TEXT[chrome.lang];
    const account = await getPspAccount(deps, session.accountId, (request.params as { psa_id: string }).psa_id);
    if (!account) return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.pspAccountNotFound));
    const done = (request.query as Record<string, unknown>).done;
    return showAccount(reply, chrome, session.accountId, account, 200, { notice: done === 'saved' || done === 'created' || done === 'verified' ? done : undefined });
  });

  /** The edit form (`edit`) or "Check again" (`verify`), both through `updatePspAccount`, as PATCH and POST …/verify are. */
  async function change(request: FastifyRequest, reply: FastifyReply, what: 'edit' | 'verify') {
    const own = await ownAccountForm(request, reply);
    if (!own) return reply;
    const { session, chrome, t, fields, id, account } = own;
    const actor = actorOf(session);
    let typed: TypedAccount | undefined;
    let outcome;
    if (what === 'verify') {
      outcome = await updatePspAccount(deps, session.accountId, id, {}, { verify: true, recheck: true, actor });
    } else {
      const def = services.psps.definition(account.psp);
      if (!def) return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.unknownPsp));
      // Blank credential fields keep their saved values: only those typed are sent, as a PATCH does.
      const typedIn = typedAccount(def, fields);
      typed = typedIn.typed;
      const patch = {
        label: fields.label ?? account.label,
        environment: fields.environment ?? account.environment,
        endpoint_url: fields.endpoint_url ? fields.endpoint_url : null,
        ...(Object.keys(typedIn.credentials).length > 0 ? { credentials: typedIn.credentials } : {}),
      };
      outcome = await updatePspAccount(deps, session.accountId, id, patch, { verify: fields.verify === 'yes', actor });
    }
    switch (outcome.kind) {
      case 'ok':
        request.log.info({ account_id: session.accountId, psp_account_id: id, what }, 'PSP account changed (back office)');
        return seeOther(reply, `/dashboard/psp-accounts/${encodeURIComponent(id)}?done=${what === 'verify' ? 'verified' : 'saved'}`);
      case 'not_found':
        return sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.pspAccountNotFound));
      case 'invalid':
        return showAccount(reply, chrome, session.accountId, account, 400, { typed, error: { field: outcome.field, message: outcome.message } });
      case 'rejected':
        return showAccount(reply, chrome, session.accountId, account, 422, { typed, error: { field: 'credentials', message: t.pspRejected(outcome.message) } });
      case 'unreachable':
        return showAccount(reply, chrome, session.accountId, account, 502, { typed, error: { field: 'credentials', message: t.pspUnreachable } });
    }
  }

  app.post('/dashboard/psp-accounts/:psa_id', PAGE, (request, reply) => change(request, reply, 'edit'));
  app.post('/dashboard/psp-accounts/:psa_id/verify', PAGE, (request, reply) => change(request, reply, 'verify'));
}

/**
 * A form's credential fields: only the connector's own, and only those filled in (an empty one is
 * absent: optional when adding, kept when editing); and what the form may show again, never a secret.
 */
function typedAccount(def: ConnectorDefinition, fields: Record<string, string | undefined>): { credentials: Record<string, string>; typed: TypedAccount } {
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
  return { credentials, typed };
}
