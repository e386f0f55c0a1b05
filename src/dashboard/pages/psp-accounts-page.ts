import type { Offer } from '../../accounts/offer.ts';
import { toPublicId } from '../../domain/ids.ts';
import { html, type SafeHtml } from '../../html/html.ts';
import { kindOf } from './offers-page.ts';
import type { ConnectorDefinition } from '../../psp/definition.ts';
import type { PspAccountView } from '../../use-cases/psp-accounts.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

/** What the add form shows again after a refusal: the fields typed, never a secret. */
export interface TypedAccount {
  label?: string;
  environment?: string;
  endpoint_url?: string;
  credentials?: Record<string, string>;
}

/** The account's PSP accounts (secrets masked as the API shows them), the add links, and delete buttons. */
export function pspAccountsPage(chrome: Chrome, accounts: PspAccountView[], connectors: ConnectorDefinition[], notice?: 'created' | 'deleted', error?: string): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const rows = accounts.map(
    (a) => html`<tr><td><a href="/dashboard/psp-accounts/${a.id}">${a.label}</a><br><span class="muted">${a.id}</span></td><td>${a.psp}</td><td>${a.environment}</td>
<td>${Object.entries(a.credentials).map(([k, v]) => html`<span class="muted">${k}</span> ${v}<br>`)}${a.endpoint_url ? html`<span class="muted">endpoint_url</span> ${a.endpoint_url}` : ''}</td>
<td>${a.verified_at ?? t.notVerified}</td>
<td><form method="post" action="/dashboard/psp-accounts/${a.id}/delete"><input type="hidden" name="csrf" value="${chrome.csrf}"><button type="submit" class="secondary" aria-label="${t.deletePspAccount(a.label)}">${t.delete}</button></form></td></tr>`,
  );
  const body = html`<h1>${t.pspAccounts}</h1>
${notice ? html`<div class="ok" role="status">${notice === 'created' ? t.pspAccountCreated : t.pspAccountDeleted}</div>` : ''}
${error ? html`<div class="alert" role="alert">${error}</div>` : ''}
<p class="muted">${t.pspAccountsHint}</p>
${
  accounts.length === 0
    ? html`<p>${t.noPspAccount}</p>`
    : html`<div class="scroll" tabindex="0" role="region" aria-label="${t.pspAccountsTable}"><table class="list"><thead><tr><th scope="col">${t.label}</th><th scope="col">PSP</th><th scope="col">${t.environment}</th><th scope="col">${t.credentials}</th><th scope="col">${t.verifiedAt}</th><th scope="col">${t.actions}</th></tr></thead><tbody>${rows}</tbody></table></div>`
}
<section class="card" aria-labelledby="add"><h2 id="add">${t.addPspAccount}</h2>
<ul>${connectors.map((d) => html`<li><a href="/dashboard/psp-accounts/new?psp=${d.name}">${d.label}</a></li>`)}</ul></section>`;
  return dashboardPage(chrome, t.pspAccounts, body);
}

type Invalid = (name: string) => SafeHtml | '';

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
    const required = !saved && f.required;
    const keep = saved ? html`<option value=""${typed.credentials?.[f.name] === undefined ? html` selected` : ''}>${saved[f.name] ?? '—'}</option>` : '';
    const input = f.enum
      ? html`<select id="${id}" name="${name}"${required ? html` required` : ''}${invalid(name)}>${keep}${f.enum.map((v) => html`<option value="${v}"${typed.credentials?.[f.name] === v ? html` selected` : ''}>${v}</option>`)}</select>`
      : html`<input id="${id}" name="${name}" type="${f.secret ? 'password' : 'text'}" autocomplete="off"${required && !f.environments ? html` required` : ''} value="${f.secret ? '' : (typed.credentials?.[f.name] ?? '')}"${saved?.[f.name] ? html` placeholder="${saved[f.name]}"` : ''}${invalid(name)}>`;
    return html`<p><label for="${id}">${f.name}${f.required ? '' : html` <span class="muted">(${t.optional})</span>`}</label>${input}<br><span class="muted">${f.description}</span></p>`;
  });
}

/** The add form of one connector, built from its credential fields (secrets as password inputs, enums as selects). */
export function newPspAccountPage(chrome: Chrome, def: ConnectorDefinition, typed: TypedAccount = {}, error?: { field: string; message: string }): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const invalid = (name: string) => (error?.field === name ? html` aria-invalid="true" aria-describedby="account-error"` : '');
  const fields = credentialInputs(chrome, def, typed, invalid);
  const title = t.addPspAccountOf(def.label);
  const body = html`<h1>${title}</h1>
${error ? html`<div class="alert" role="alert" id="account-error">${error.field}: ${error.message}</div>` : ''}
<form method="post" action="/dashboard/psp-accounts" class="card">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<input type="hidden" name="psp" value="${def.name}">
<p><label for="label">${t.label}</label><input id="label" name="label" required maxlength="100" value="${typed.label ?? ''}"${invalid('label')}></p>
<p><label for="environment">${t.environment}</label><select id="environment" name="environment"${invalid('environment')}>${def.environments.map((e) => html`<option value="${e}"${typed.environment === e ? html` selected` : ''}>${e}</option>`)}</select></p>
${fields}
<p><label for="endpoint_url">endpoint_url <span class="muted">(${t.optional})</span></label><input id="endpoint_url" name="endpoint_url" type="url" value="${typed.endpoint_url ?? ''}"${invalid('endpoint_url')}></p>
<p><input type="checkbox" id="verify" name="verify" value="yes" checked> <label for="verify">${t.verifyWithPsp}</label></p>
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
  extra: { notice?: 'saved' | 'verified'; error?: { field: string; message: string }; typed?: TypedAccount } = {},
): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const typed = extra.typed ?? { label: a.label, environment: a.environment, endpoint_url: a.endpoint_url ?? '' };
  const invalid = (name: string) => (extra.error?.field === name ? html` aria-invalid="true" aria-describedby="account-error"` : '');
  const body = html`<h1>${a.label}</h1>
${extra.notice ? html`<div class="ok" role="status">${extra.notice === 'saved' ? t.pspAccountCreated : t.pspAccountVerified}</div>` : ''}
${extra.error ? html`<div class="alert" role="alert" id="account-error">${extra.error.field}: ${extra.error.message}</div>` : ''}
<section class="card" aria-labelledby="facts"><h2 id="facts">${a.id}</h2>
<dl class="facts"><dt>${t.connector}</dt><dd>${def?.label ?? a.psp}</dd>
<dt>${t.environment}</dt><dd>${a.environment}</dd>
<dt>${t.credentials}</dt><dd>${Object.entries(a.credentials).map(([k, v]) => html`<span class="muted">${k}</span> ${v}<br>`)}${a.endpoint_url ? html`<span class="muted">endpoint_url</span> ${a.endpoint_url}` : ''}</dd>
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
<p><label for="environment">${t.environment}</label><select id="environment" name="environment"${invalid('environment')}>${def.environments.map((e) => html`<option value="${e}"${typed.environment === e ? html` selected` : ''}>${e}</option>`)}</select></p>
<p class="muted">${t.keepBlank}</p>
${credentialInputs(chrome, def, typed, invalid, a.credentials)}
<p><label for="endpoint_url">endpoint_url <span class="muted">(${t.optional})</span></label><input id="endpoint_url" name="endpoint_url" type="url" value="${typed.endpoint_url ?? ''}"${invalid('endpoint_url')}></p>
<p><input type="checkbox" id="verify" name="verify" value="yes" checked> <label for="verify">${t.verifyWithPsp}</label></p>
<p><button type="submit">${t.savePspAccount}</button></p>
</form>`
    : ''
}
<p><a class="button secondary" href="/dashboard/psp-accounts">${t.goBack}</a></p>`;
  return dashboardPage(chrome, a.label, body);
}
