import { html } from '../html/html.ts';
import type { ConnectorDefinition } from '../psp/definition.ts';
import type { PspAccountView } from '../use-cases/psp-accounts.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from './texts.ts';

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
    (a) => html`<tr><td>${a.label}<br><span class="muted">${a.id}</span></td><td>${a.psp}</td><td>${a.environment}</td>
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

/** The add form of one connector, built from its credential fields (secrets as password inputs, enums as selects). */
export function newPspAccountPage(chrome: Chrome, def: ConnectorDefinition, typed: TypedAccount = {}, error?: { field: string; message: string }): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const invalid = (name: string) => (error?.field === name ? html` aria-invalid="true" aria-describedby="account-error"` : '');
  const fields = def.credentialFields.map((f) => {
    const name = `credentials.${f.name}`;
    const id = `cred_${f.name}`;
    const input = f.enum
      ? html`<select id="${id}" name="${name}"${f.required ? html` required` : ''}${invalid(name)}>${f.enum.map((v) => html`<option value="${v}"${typed.credentials?.[f.name] === v ? html` selected` : ''}>${v}</option>`)}</select>`
      : html`<input id="${id}" name="${name}" type="${f.secret ? 'password' : 'text'}" autocomplete="off"${f.required && !f.environments ? html` required` : ''} value="${f.secret ? '' : (typed.credentials?.[f.name] ?? '')}"${invalid(name)}>`;
    return html`<p><label for="${id}">${f.name}${f.required ? '' : html` <span class="muted">(${t.optional})</span>`}</label>${input}<br><span class="muted">${f.description}</span></p>`;
  });
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
