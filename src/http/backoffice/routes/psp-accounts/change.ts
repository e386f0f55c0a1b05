import type { FastifyReply, FastifyRequest } from 'fastify';
import { actorOf } from '../../../../audit/audit-log.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { updatePspAccount } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { App } from '../../../types.ts';
import type { TypedAccount } from '../../pages/psp-accounts-page.ts';
import { messagePage } from '../../pages/sign-in-page.ts';
import { seeOther, sendPage } from '../support.ts';
import { ownAccountForm, PAGE, showAccount, typedAccount } from './support.ts';

/** POST /dashboard/psp-accounts/{psa_id} (the edit form) and …/verify ("Check again"). */
export function registerPspAccountsChange(app: App, services: Services, sessions: DashboardSessions): void {
  const deps = services.pspAccounts;

  /** The edit form (`edit`) or "Check again" (`verify`), both through `updatePspAccount`, as PATCH and POST …/verify are. */
  async function change(request: FastifyRequest, reply: FastifyReply, what: 'edit' | 'verify') {
    const own = await ownAccountForm(services, sessions, request, reply);
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
        return showAccount(services, reply, chrome, session.accountId, account, 400, { typed, error: { field: outcome.field, message: outcome.message } });
      case 'rejected':
        return showAccount(services, reply, chrome, session.accountId, account, 422, { typed, error: { field: 'credentials', message: t.pspRejected(outcome.message) } });
      case 'unreachable':
        return showAccount(services, reply, chrome, session.accountId, account, 502, { typed, error: { field: 'credentials', message: t.pspUnreachable } });
    }
  }

  app.post('/dashboard/psp-accounts/:psa_id', PAGE, (request, reply) => change(request, reply, 'edit'));
  app.post('/dashboard/psp-accounts/:psa_id/verify', PAGE, (request, reply) => change(request, reply, 'verify'));
}
