import { html } from '../../../html/html.ts';
import { formatDateTime } from '../../../i18n/format.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

/** The zones the input suggests: every zone this Node knows, and UTC (which Intl's list leaves out). */
const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone')];

/** What the form shows: the account's country (null: the deployment's, `fallback`). */
export interface SettingsView {
  country: string | null;
  fallback: string;
}

/** A refusal: the field refused, its message, and what was typed in both fields (shown again). */
export interface SettingsRefusal {
  field: 'time_zone' | 'country';
  error: string;
  typed: { timeZone: string; country: string };
}

/**
 * The account's settings (admins): its time zone, with the time now as the pages will show it,
 * and its country, where its shoppers' national phone numbers are read. After a refusal, what
 * was typed is shown again, the refused input marked and the message naming it. Links to the
 * account's risk rules (src/http/backoffice/routes/risk-rules.ts).
 */
export function settingsPage(chrome: Chrome, now: Date, view: SettingsView, outcome?: SettingsRefusal | { saved: true }): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const error = outcome && 'error' in outcome ? outcome : undefined;
  const zoneError = error?.field === 'time_zone';
  const countryError = error?.field === 'country';
  const body = html`<h1>${t.settings}</h1>
${outcome && 'saved' in outcome ? html`<div class="ok" role="status">${t.timeZoneSaved}</div>` : ''}
${error ? html`<div class="alert" role="alert" id="settings-error">${error.error}</div>` : ''}
<form method="post" action="/dashboard/settings" class="card">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<p><label for="time_zone">${t.timeZone}</label><input id="time_zone" name="time_zone" type="text" list="time-zones" required maxlength="64" autocomplete="off" spellcheck="false" aria-describedby="${zoneError ? 'settings-error ' : ''}time-zone-hint" value="${error ? error.typed.timeZone : chrome.timeZone}"${zoneError ? html` aria-invalid="true"` : ''}>
<br><span class="muted" id="time-zone-hint">${t.timeZoneHint} ${t.timeZoneNow(formatDateTime(now, chrome.lang, chrome.timeZone))} ${t.timeZoneDays}</span></p>
<datalist id="time-zones">${ZONES.map((z) => html`<option value="${z}"></option>`)}</datalist>
<p><label for="country">${t.country}</label><input id="country" name="country" type="text" maxlength="2" autocomplete="off" spellcheck="false" placeholder="${view.fallback}" aria-describedby="${countryError ? 'settings-error ' : ''}country-hint" value="${error ? error.typed.country : (view.country ?? '')}"${countryError ? html` aria-invalid="true"` : ''}>
<br><span class="muted" id="country-hint">${t.countryHint(view.fallback)}</span></p>
<p><button type="submit">${t.saveTimeZone}</button></p>
</form>
<p class="card"><a href="/dashboard/settings/risk-rules">${t.riskForm.settingsLink}</a></p>`;
  return dashboardPage(chrome, t.settings, body);
}
