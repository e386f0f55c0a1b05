import type { Offer } from '../../../accounts/offer.ts';
import { toPublicId } from '../../../domain/ids.ts';
import { html, type SafeHtml } from '../../../html/html.ts';
import { kindOf } from './offers-page.ts';
import type { ConnectorDefinition } from '../../../psp/definition.ts';
import { catalogueOf, namesReachedBy } from '../../../psp/catalogue.ts';
import type { PspAccountView } from '../../../use-cases/merchant-setup/psp-accounts.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT, type DashboardTexts } from '../texts.ts';
import { credentialFormat, credentialHelp } from '../credential-help.ts';

/** What the add form shows again after a refusal: the fields typed, never a secret. */
export interface TypedAccount {
  label?: string;
  environment?: string;
  endpoint_url?: string;
  credentials?: Record<string, string>;
}

/** The account's PSP accounts (secrets masked as the API shows them), the add links, and delete buttons. */
export function pspAccountsPage(chrome: Chrome, accounts: PspAccountView[], connectors: ConnectorDefinition[], notice?: 'deleted', error?: string): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const rows = accounts.map(
    (
      a,
    ) => html`<tr><td><a href="/dashboard/psp-accounts/${a.id}">${a.label}</a><br><span class="muted">${a.id}</span></td><td>${a.psp}</td><td>${t.environmentNames[a.environment]}</td>
<td>${Object.entries(a.credentials).map(([k, v]) => html`<span class="muted">${t.credentialLabels[k] ?? k}</span> ${v}<br>`)}${a.endpoint_url ? html`<span class="muted">${t.endpointUrl}</span> ${a.endpoint_url}` : ''}</td>
<td>${a.verified_at ?? t.notVerified}${a.needs_attention ? html`<br><strong>${t.needsAttention}</strong>: ${fieldLabel(t, a.needs_attention.field)}` : ''}</td>
<td><form method="post" action="/dashboard/psp-accounts/${a.id}/delete"><input type="hidden" name="csrf" value="${chrome.csrf}"><button type="submit" class="secondary" aria-label="${t.deletePspAccount(a.label)}">${t.delete}</button></form></td></tr>`,
  );
  // Only names whose route the build lacks: the catalogue never promises what is not here.
  const notYet = catalogueOf(connectors.map((d) => d.name)).filter((e) => e.route.kind === 'not_yet');
  const body = html`<h1>${t.pspAccounts}</h1>
${notice ? html`<div class="ok" role="status">${t.pspAccountDeleted}</div>` : ''}
${error ? html`<div class="alert" role="alert">${error}</div>` : ''}
<p class="muted">${t.pspAccountsHint}</p>
${
  accounts.length === 0
    ? html`<p>${t.noPspAccount}</p>`
    : html`<div class="scroll" tabindex="0" role="region" aria-label="${t.pspAccountsTable}"><table class="list"><thead><tr><th scope="col">${t.label}</th><th scope="col">PSP</th><th scope="col">${t.environment}</th><th scope="col">${t.credentials}</th><th scope="col">${t.verifiedAt}</th><th scope="col">${t.actions}</th></tr></thead><tbody>${rows}</tbody></table></div>`
}
<section class="card" aria-labelledby="add"><h2 id="add">${t.addPspAccount}</h2>
<ul>${connectors.map((d) => {
    const names = namesReachedBy(d.name);
    return html`<li><a href="/dashboard/psp-accounts/new?psp=${d.name}">${d.label}</a>${names.length ? html` <span class="muted">${t.reaches(names.join(', '))}</span>` : ''}</li>`;
  })}</ul>
${
  notYet.length
    ? html`<h3 id="not-yet">${t.notReachedYet}</h3><ul aria-labelledby="not-yet">${notYet.map((e) => html`<li>${e.name} <span class="muted">${e.route.kind === 'not_yet' ? t.notReachedWhy(e.route.why) : ''}</span></li>`)}</ul>`
    : ''
}</section>`;
  return dashboardPage(chrome, t.pspAccounts, body);
}

type Invalid = (name: string) => SafeHtml | '';

/** A field of the form by its label (the API's name is for programs): "Secret key", "API address…". */
function fieldLabel(t: DashboardTexts, field: string): string {
  if (field.startsWith('credentials.')) return t.credentialLabels[field.slice('credentials.'.length)] ?? field;
  const named: Record<string, string> = { label: t.label, environment: t.environment, endpoint_url: t.endpointUrl, credentials: t.credentials, psp: t.connector };
  return named[field] ?? field;
}

/**
 * A refusal, naming the field by its label. A credential refused for its format says the format
 * expected (the connector's `format`), in the page's language; other messages are the API's.
 */
function problem(chrome: Chrome, def: ConnectorDefinition | undefined, error: { field: string; message: string }): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const f = def?.credentialFields.find((c) => `credentials.${c.name}` === error.field);
  const formatRefused = f?.format && /^(does not have the expected format|must match)/.test(error.message);
  return t.fieldProblem(fieldLabel(t, error.field), formatRefused ? t.badFormat(credentialFormat(chrome.lang, def!, f)) : error.message);
}

/** What the PSP account must have before it can take payments through Chipin (docs/psp/<name>.md). */
function requirements(t: DashboardTexts, def: ConnectorDefinition): SafeHtml | '' {
  const needs = t.pspRequirements[def.name];
  return needs
    ? html`<section class="card" aria-labelledby="needs"><h2 id="needs">${t.pspRequirementsHeading(def.label)}</h2><ul>${needs.map((n) => html`<li>${n}</li>`)}</ul></section>`
    : '';
}

/**
 * The inputs of a connector's credential fields (secrets as password inputs, enums as selects),
 * each with where to find it. A secret is never filled in again. With `saved` (an existing
 * account's masked values), nothing is required: a field left blank keeps its saved value, whose
 * mask is shown as the placeholder.
 */
function credentialInputs(chrome: Chrome, def: ConnectorDefinition, typed: TypedAccount, invalid: Invalid, saved?: Record<string, string>): SafeHtml[] {
  const t = DASHBOARD_TEXT[chrome.lang];
  return def.credentialFields.map((f) => {
    const name = `credentials.${f.name}`;
    const id = `cred_${f.name}`;
    const described = invalid(name) || html` aria-describedby="${id}_hint"`;
    const required = !saved && f.required;
    const keep = saved ? html`<option value=""${typed.credentials?.[f.name] === undefined ? html` selected` : ''}>${saved[f.name] ?? '—'}</option>` : '';
    const input = f.enum
      ? html`<select id="${id}" name="${name}"${required ? html` required` : ''}${described}>${keep}${f.enum.map((v) => html`<option value="${v}"${typed.credentials?.[f.name] === v ? html` selected` : ''}>${v}</option>`)}</select>`
      : html`<input id="${id}" name="${name}" type="${f.secret ? 'password' : 'text'}" autocomplete="off"${required && !f.environments ? html` required` : ''} value="${f.secret ? '' : (typed.credentials?.[f.name] ?? '')}"${saved?.[f.name] ? html` placeholder="${saved[f.name]}"` : ''}${described}>`;
    return html`<p><label for="${id}">${t.credentialLabels[f.name] ?? f.name}${f.required ? '' : html` <span class="muted">(${t.optional})</span>`}</label>${input}<br><span class="muted" id="${id}_hint">${f.format ? html`${t.expectedFormat(credentialFormat(chrome.lang, def, f))} ` : ''}${credentialHelp(chrome.lang, def, f)}</span></p>`;
  });
}

function endpointInput(t: DashboardTexts, typed: TypedAccount, invalid: Invalid): SafeHtml {
  return html`<p><label for="endpoint_url">${t.endpointUrl} <span class="muted">(${t.optional})</span></label><input id="endpoint_url" name="endpoint_url" type="url" value="${typed.endpoint_url ?? ''}"${invalid('endpoint_url') || html` aria-describedby="endpoint_url_hint"`}><br><span class="muted" id="endpoint_url_hint">${t.endpointUrlHint}</span></p>`;
}

/** The add form of one connector, built from its credential fields (secrets as password inputs, enums as selects). */
export function newPspAccountPage(chrome: Chrome, def: ConnectorDefinition, typed: TypedAccount = {}, error?: { field: string; message: string }): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const invalid = (name: string) => (error?.field === name ? html` aria-invalid="true" aria-describedby="account-error"` : '');
  const fields = credentialInputs(chrome, def, typed, invalid);
  const title = t.addPspAccountOf(def.label);
  const body = html`<h1>${title}</h1>
${error ? html`<div class="alert" role="alert" id="account-error">${problem(chrome, def, error)}</div>` : ''}
${requirements(t, def)}
<form method="post" action="/dashboard/psp-accounts" class="card">
<p class="muted">${t.afterSaveHint}</p>
<input type="hidden" name="csrf" value="${chrome.csrf}">
<input type="hidden" name="psp" value="${def.name}">
<p><label for="label">${t.label}</label><input id="label" name="label" required maxlength="100" value="${typed.label ?? ''}"${invalid('label')}></p>
<p><label for="environment">${t.environment}</label><select id="environment" name="environment"${invalid('environment')}>${def.environments.map((e) => html`<option value="${e}"${typed.environment === e ? html` selected` : ''}>${t.environmentNames[e]}</option>`)}</select></p>
${fields}
${endpointInput(t, typed, invalid)}
<p><input type="checkbox" id="verify" name="verify" value="yes" checked style="width:auto"> <label for="verify" style="display:inline">${t.verifyWithPsp}</label></p>
<p><button type="submit">${t.savePspAccount}</button></p>
</form>
<p><a class="button secondary" href="/dashboard/psp-accounts">${t.goBack}</a></p>`;
  return dashboardPage(chrome, title, body);
}

/** The confirmation step of a delete. */
export function confirmDeletePage(chrome: Chrome, account: PspAccountView): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const body = html`<div class="card"><h1>${t.deletePspAccount(account.label)}</h1>
<p><strong>${t.confirmDeletePspAccount(account.label, account.psp)}</strong></p>
<form method="post" action="/dashboard/psp-accounts/${account.id}/delete">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<input type="hidden" name="confirm" value="yes">
<p><button type="submit">${t.delete}</button></p>
</form>
<p><a class="button secondary" href="/dashboard/psp-accounts">${t.goBack}</a></p></div>`;
  return dashboardPage(chrome, t.deletePspAccount(account.label), body);
}

/**
 * One PSP account: what it is, when it was last checked, the offers paying through it; the form
 * changing it (`PATCH /api/backoffice/psp_accounts/{id}`'s use case) and "Check again"
 * (`POST …/{id}/verify`'s). Secrets are shown masked, never in an input.
 */
export function pspAccountPage(
  chrome: Chrome,
  a: PspAccountView,
  def: ConnectorDefinition | undefined,
  offers: Offer[],
  extra: { notice?: 'saved' | 'created' | 'verified'; error?: { field: string; message: string }; typed?: TypedAccount; notificationUrl?: string } = {},
): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const typed = extra.typed ?? { label: a.label, environment: a.environment, endpoint_url: a.endpoint_url ?? '' };
  const invalid = (name: string) => (extra.error?.field === name ? html` aria-invalid="true" aria-describedby="account-error"` : '');
  const body = html`<h1>${a.label}</h1>
${extra.notice ? html`<div class="ok" role="status">${extra.notice === 'verified' ? t.pspAccountVerified : t.pspAccountCreated}</div>` : ''}
${extra.error ? html`<div class="alert" role="alert" id="account-error">${problem(chrome, def, extra.error)}</div>` : ''}
${a.needs_attention ? html`<div class="alert" role="alert" id="needs-attention">${t.credentialUnusable(fieldLabel(t, a.needs_attention.field))} <span class="muted">(${a.needs_attention.message})</span></div>` : ''}
${extra.notificationUrl ? notificationUrlSection(t, a, def, extra.notificationUrl) : ''}
<section class="card" aria-labelledby="facts"><h2 id="facts">${t.pspAccountFacts}</h2>
<dl class="facts"><dt>${t.pspAccountId}</dt><dd>${a.id}</dd>
<dt>${t.connector}</dt><dd>${def?.label ?? a.psp}</dd>
<dt>${t.environment}</dt><dd>${t.environmentNames[a.environment]}</dd>
<dt>${t.credentials}</dt><dd>${Object.entries(a.credentials).map(([k, v]) => html`<span class="muted">${t.credentialLabels[k] ?? k}</span> ${v}<br>`)}${a.endpoint_url ? html`<span class="muted">${t.endpointUrl}</span> ${a.endpoint_url}` : ''}</dd>
<dt>${t.verifiedAt}</dt><dd>${a.verified_at ?? t.notVerified}</dd>
</dl>
<form method="post" action="/dashboard/psp-accounts/${a.id}/verify"><input type="hidden" name="csrf" value="${chrome.csrf}">
<p><button type="submit" aria-describedby="check-hint">${t.checkAgain}</button> <span class="muted" id="check-hint">${t.checkAgainHint}</span></p></form>
</section>
<section class="card" aria-labelledby="using"><h2 id="using">${t.offersUsing}</h2>
${offers.length === 0 ? html`<p>${t.noOfferUsing}</p>` : html`<ul>${offers.map((o) => html`<li><a href="/dashboard/offers/${toPublicId('mer', o.id)}">${kindOf(t, o)}</a></li>`)}</ul>`}
</section>
${
  def
    ? html`<form method="post" action="/dashboard/psp-accounts/${a.id}" class="card" aria-labelledby="edit">
<h2 id="edit">${t.editPspAccount}</h2>
<input type="hidden" name="csrf" value="${chrome.csrf}">
<p><label for="label">${t.label}</label><input id="label" name="label" required maxlength="100" value="${typed.label ?? ''}"${invalid('label')}></p>
<p><label for="environment">${t.environment}</label><select id="environment" name="environment"${invalid('environment')}>${def.environments.map((e) => html`<option value="${e}"${typed.environment === e ? html` selected` : ''}>${t.environmentNames[e]}</option>`)}</select></p>
<p class="muted">${t.keepBlank}</p>
${credentialInputs(chrome, def, typed, invalid, a.credentials)}
${endpointInput(t, typed, invalid)}
<p><input type="checkbox" id="verify" name="verify" value="yes" checked style="width:auto"> <label for="verify" style="display:inline">${t.verifyWithPsp}</label></p>
<p><button type="submit">${t.savePspAccount}</button></p>
</form>`
    : ''
}
<p><a class="button secondary" href="/dashboard/psp-accounts">${t.goBack}</a></p>`;
  return dashboardPage(chrome, a.label, body, extra.notificationUrl ? '/assets/copy.js' : undefined);
}

/**
 * Where the PSP sends its notifications for this account, to copy into the PSP's back office
 * (docs/psp-connectors.md#psp-accounts), and which of the secrets the PSP makes for that URL are
 * still missing: the connector refuses every notification until they are added.
 */
function notificationUrlSection(t: DashboardTexts, a: PspAccountView, def: ConnectorDefinition | undefined, url: string): SafeHtml {
  const psp = def?.label ?? a.psp;
  const missing = (def?.credentialFields ?? []).filter((f) => f.afterWebhook && a.credentials[f.name] === undefined);
  return html`<section class="card" aria-labelledby="notification-url"><h2 id="notification-url">${t.webhookUrlOfPsp(psp)}</h2>
<p class="muted" id="notification-url-hint">${t.webhookUrlOfPspHint(psp)}</p>
<p class="copy-row"><input id="notification-url-value" type="text" readonly value="${url}" aria-labelledby="notification-url" aria-describedby="notification-url-hint">
<button type="button" class="secondary" data-copy="notification-url-value" data-copied="${t.copied}" aria-label="${t.copyNotificationUrl}" hidden>${t.copy}</button></p>
<p class="muted" aria-live="polite" data-copy-status></p>
${missing.map((f) => html`<div class="alert">${t.missingWebhookSecret(t.credentialLabels[f.name] ?? f.name, psp)}</div>`)}
</section>`;
}
