import type { Offer } from '../accounts/offers.ts';
import { toPublicId } from '../domain/ids.ts';
import { html } from '../html/html.ts';
import { formatMoney } from '../i18n/format.ts';
import type { PspAccountView } from '../use-cases/psp-accounts.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT, type DashboardTexts } from './texts.ts';

const kindOf = (t: DashboardTexts, o: Offer) =>
  o.type === 'SHARED' ? t.kindShared : o.type === 'INSTALLMENTS' ? t.kindInstallments(o.installments) : t.kindDeferred(o.deferredDays);

const pspOf = (t: DashboardTexts, o: Offer, accounts: PspAccountView[]) => {
  if (o.pspAccountId === null) return t.sandboxPsp;
  const a = accounts.find((p) => p.id === toPublicId('psa', o.pspAccountId!));
  return a ? `${a.label} (${a.psp}, ${a.environment})` : o.psp;
};

/** The account's offers: kind, fees, limits, delays and the PSP account each pays through. */
export function offersPage(chrome: Chrome, offers: Offer[], accounts: PspAccountView[]): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const money = (cents: number, o: Offer) => formatMoney(cents, o.currency, chrome.lang);
  const rows = offers.map((o) => {
    const uid = toPublicId('mer', o.id);
    return html`<tr><td><a href="/dashboard/offers/${uid}">${kindOf(t, o)}</a><br><span class="muted">${uid}</span></td>
<td>${t.feesOf((o.feeRateBps / 100).toLocaleString(chrome.lang), money(o.fixedFeeCents, o))}</td>
<td>${money(o.minAmountCents, o)} – ${money(o.maxAmountCents, o)}</td>
<td>${t.hours(o.expiryHours)}</td><td>${o.type === 'SHARED' ? t.hours(o.potDeadlineHours) : '—'}</td><td>${pspOf(t, o, accounts)}</td></tr>`;
  });
  const body = html`<h1>${t.offers}</h1>
<div class="scroll" tabindex="0" role="region" aria-label="${t.offersTable}"><table class="list"><thead><tr><th scope="col">${t.offer}</th><th scope="col">${t.fees}</th><th scope="col">${t.limits}</th><th scope="col">${t.expiryHours}</th><th scope="col">${t.potDeadlineHours}</th><th scope="col">${t.pspAccount}</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  return dashboardPage(chrome, t.offers, body);
}

/** One offer: its terms (read-only here) and the form choosing the PSP account it pays through. */
export function offerPage(chrome: Chrome, o: Offer, accounts: PspAccountView[], extra: { error?: string; saved?: boolean } = {}): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const uid = toPublicId('mer', o.id);
  const money = (cents: number) => formatMoney(cents, o.currency, chrome.lang);
  const current = o.pspAccountId === null ? '' : toPublicId('psa', o.pspAccountId);
  const body = html`<h1>${kindOf(t, o)}</h1>
${extra.saved ? html`<div class="ok" role="status">${t.offerSaved}</div>` : ''}
${extra.error ? html`<div class="alert" role="alert" id="offer-error">${extra.error}</div>` : ''}
<section class="card" aria-labelledby="terms"><h2 id="terms">${t.offerTerms}</h2>
<dl class="facts"><dt>${t.offer}</dt><dd>${uid}</dd>
<dt>${t.fees}</dt><dd>${t.feesOf((o.feeRateBps / 100).toLocaleString(chrome.lang), money(o.fixedFeeCents))}</dd>
<dt>${t.limits}</dt><dd>${money(o.minAmountCents)} – ${money(o.maxAmountCents)}</dd>
<dt>${t.expiryHours}</dt><dd>${t.hours(o.expiryHours)}</dd>
${o.type === 'SHARED' ? html`<dt>${t.potDeadlineHours}</dt><dd>${t.hours(o.potDeadlineHours)}</dd>` : ''}
</dl></section>
<section class="card" aria-labelledby="psp"><h2 id="psp">${t.pspAccount}</h2>
<form method="post" action="/dashboard/offers/${uid}">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<label for="psp_account_id">${t.pspAccountField}</label>
<select id="psp_account_id" name="psp_account_id"${extra.error ? html` aria-invalid="true" aria-describedby="offer-error"` : ''}>
<option value=""${current === '' ? html` selected` : ''}>${t.sandboxPsp}</option>
${accounts.map((a) => html`<option value="${a.id}"${a.id === current ? html` selected` : ''}>${a.label} (${a.psp}, ${a.environment})</option>`)}
</select>
<span class="muted">${t.pspAccountHint}</span>
<p><button type="submit">${t.saveOffer}</button></p>
</form></section>
<p><a class="button secondary" href="/dashboard/offers">${t.goBack}</a></p>`;
  return dashboardPage(chrome, kindOf(t, o), body);
}
