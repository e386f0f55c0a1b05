import type { FastifyReply, FastifyRequest } from 'fastify';
import { parsePublicId, toPublicId } from '../../../../domain/ids.ts';
import { pspNotificationUrl } from '../../../../domain/links.ts';
import type { ConnectorDefinition } from '../../../../psp/definition.ts';
import { DEFAULT_PSP } from '../../../../psp/registry.ts';
import type { Services } from '../../../../services.ts';
import type { DashboardSessions } from '../../../../staff/sessions.ts';
import { getPspAccount, type PspAccountView } from '../../../../use-cases/merchant-setup/psp-accounts.ts';
import type { Chrome } from '../../pages/layout.ts';
import { pspAccountPage, type TypedAccount } from '../../pages/psp-accounts-page.ts';
import { messagePage } from '../../pages/sign-in-page.ts';
import { DASHBOARD_TEXT } from '../../texts.ts';
import { sendPage, signedInForm } from '../support.ts';

export const PAGE = { schema: { hide: true } };

/** The connectors a merchant can add an account of: every one but the built-in sandbox, which needs none. */
export function addableConnectors(services: Services): ConnectorDefinition[] {
  return services.psps.definitions.filter((d) => d.name !== DEFAULT_PSP);
}

/**
 * What every form on one PSP account starts with: signed in, the CSRF token, the account's own
 * PSP account (another account's is not found, as an unknown one is). Undefined once answered.
 */
export async function ownAccountForm(services: Services, sessions: DashboardSessions, request: FastifyRequest, reply: FastifyReply) {
  const ctx = await signedInForm(services, sessions, request, reply);
  if (!ctx) return undefined;
  const { session, chrome, form: fields } = ctx;
  const t = DASHBOARD_TEXT[chrome.lang];
  const id = (request.params as { psa_id: string }).psa_id;
  const account = await getPspAccount(services.pspAccounts, session.accountId, id);
  if (!account) {
    sendPage(reply, 404, messagePage(chrome.lang, t.notFoundTitle, t.pspAccountNotFound));
    return undefined;
  }
  return { session, chrome, t, fields, id, account };
}

/** The account's page: its settings, the offers using it, the edit form, "Check again". */
export async function showAccount(
  services: Services,
  reply: FastifyReply,
  chrome: Chrome,
  accountId: string,
  account: PspAccountView,
  status: number,
  extra: Parameters<typeof pspAccountPage>[4] = {},
) {
  services.offers.forget(accountId);
  const using = (await services.offers.list(accountId)).filter((o) => o.pspAccountId !== null && toPublicId('psa', o.pspAccountId) === account.id);
  const def = services.psps.definition(account.psp);
  // No URL to set at a PSP whose notifications Chipin cannot verify: its outcomes are read from it.
  const notificationUrl = def?.takesNotifications === false ? undefined : pspNotificationUrl(services.config.publicUrl.replace(/\/+$/, ''), parsePublicId('psa', account.id)!);
  return sendPage(reply, status, pspAccountPage(chrome, account, def, using, { ...extra, ...(notificationUrl ? { notificationUrl } : {}) }));
}

/**
 * A form's credential fields: only the connector's own, and only those filled in (an empty one is
 * absent: optional when adding, kept when editing); and what the form may show again, never a secret.
 */
export function typedAccount(def: ConnectorDefinition, fields: Record<string, string | undefined>): { credentials: Record<string, string>; typed: TypedAccount } {
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
