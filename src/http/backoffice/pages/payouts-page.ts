import { html } from '../../../html/html.ts';
import { formatDate, formatDateTime, formatMoney } from '../../../i18n/format.ts';
import type { BankDetailsView } from '../../../payouts/bank-details.ts';
import type { PayoutLineRow, PayoutRow } from '../../../payouts/payout-repository.ts';
import { payoutTotalsView } from '../../../payouts/payout-views.ts';
import { toPublicId } from '../../../domain/ids.ts';
import type { MerchantBalance } from '../../../use-cases/payouts/payouts.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

export interface PayoutsView {
  balances: MerchantBalance[];
  bankDetails: BankDetailsView | undefined;
  payouts: PayoutRow[];
  /** How many payouts the page shows at most (the API has them all). */
  shown: number;
}

/** A refused form: the field, its message, and what was typed (shown again, never an IBAN saved before). */
export interface BankDetailsRefusal {
  field: string;
  error: string;
  typed: { holder_name: string; iban: string; bic: string };
}

/**
 * The account's balance and payouts in transfer mode (admins, docs/back-office.md#payouts): what is
 * owed per currency and what the next daily payout does with it (why none: no bank details, a debit
 * balance), the bank details masked with the form that changes them, and the payouts, newest first.
 */
export function payoutsPage(chrome: Chrome, view: PayoutsView, outcome?: BankDetailsRefusal | { saved: boolean }): string {
  const t = DASHBOARD_TEXT[chrome.lang].payouts;
  const money = (cents: number, currency: string) => formatMoney(cents, currency, chrome.lang);
  const refusal = outcome && 'error' in outcome ? outcome : undefined;
  const field = (name: 'holder_name' | 'iban' | 'bic', label: string, attrs: { maxlength: number; autocomplete: string }) => {
    const wrong = refusal?.field === name;
    return html`<p><label for="${name}">${label}</label><input id="${name}" name="${name}" type="text" required maxlength="${String(attrs.maxlength)}" autocomplete="${attrs.autocomplete}" spellcheck="false" value="${refusal ? refusal.typed[name] : name === 'holder_name' ? (view.bankDetails?.holder_name ?? '') : name === 'bic' ? (view.bankDetails?.bic ?? '') : ''}"${wrong ? html` aria-invalid="true" aria-describedby="bank-details-error"` : ''}></p>`;
  };
  const balances = view.balances.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${t.balance}"><table class="list"><thead><tr><th scope="col">${t.currency}</th><th scope="col">${t.owed}</th><th scope="col">${t.inPayouts}</th><th scope="col">${t.paidOut}</th><th scope="col">${t.nextPayout}</th></tr></thead><tbody>${view.balances.map(
        (b) =>
          html`<tr><td>${b.currency}</td><td>${money(b.owed_cents, b.currency)}</td><td>${money(b.in_payouts_cents, b.currency)}</td><td>${money(b.paid_out_cents, b.currency)}</td><td>${t.next[b.next_payout] ?? b.next_payout}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p>${t.noBalance}</p>`;
  const details = view.bankDetails
    ? html`<dl class="facts"><dt>${t.holderName}</dt><dd>${view.bankDetails.holder_name}</dd><dt>${t.iban}</dt><dd><code>${view.bankDetails.iban_masked}</code></dd><dt>${t.bic}</dt><dd><code>${view.bankDetails.bic}</code></dd><dt>${t.updated}</dt><dd>${formatDateTime(new Date(view.bankDetails.updated_at), chrome.lang, chrome.timeZone)}</dd></dl>${view.bankDetails.payouts_held_until ? html`<div class="alert" role="status">${t.heldUntil(formatDateTime(new Date(view.bankDetails.payouts_held_until), chrome.lang, chrome.timeZone))}</div>` : ''}`
    : html`<div class="alert" role="status">${t.noBankDetails}</div>`;
  const rows = view.payouts.map((p) => {
    const id = toPublicId('po', p.id);
    return html`<tr><td><a href="/dashboard/payouts/${id}">${formatDate(p.business_day, chrome.lang)}</a></td><td>${money(p.amount_cents, p.currency)}</td><td>${p.line_count}</td><td>${t.statusNames[p.status] ?? p.status}</td><td>${formatDateTime(p.created_at, chrome.lang, chrome.timeZone)}</td></tr>`;
  });
  const body = html`<h1>${t.title}</h1>
<p class="muted">${t.intro(chrome.timeZone)}</p>
<section class="card" aria-labelledby="balance"><h2 id="balance">${t.balance}</h2>
${balances}
</section>
<section class="card" aria-labelledby="bank-details"><h2 id="bank-details">${t.bankDetails}</h2>
<p class="muted">${t.bankDetailsIntro}</p>
${outcome && 'saved' in outcome ? html`<div class="ok" role="status">${outcome.saved ? t.saved : t.unchanged}</div>` : ''}
${refusal ? html`<div class="alert" role="alert" id="bank-details-error">${refusal.error}</div>` : ''}
${details}
<form method="post" action="/dashboard/payouts/bank-details">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<h3>${view.bankDetails ? t.changeBankDetails : t.setBankDetails}</h3>
${field('holder_name', t.holderName, { maxlength: 70, autocomplete: 'organization' })}
${field('iban', t.iban, { maxlength: 42, autocomplete: 'off' })}
${field('bic', t.bic, { maxlength: 14, autocomplete: 'off' })}
<p><label for="current_password">${t.currentPassword}</label><input id="current_password" name="current_password" type="password" autocomplete="current-password" required${refusal?.field === 'current_password' ? html` aria-invalid="true" aria-describedby="bank-details-error"` : ''}></p>
<p><button type="submit">${t.save}</button></p>
</form>
</section>
<section class="card" aria-labelledby="payout-list"><h2 id="payout-list">${t.list}</h2>
${
  rows.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${t.list}"><table class="list"><thead><tr><th scope="col">${t.day}</th><th scope="col">${t.amount}</th><th scope="col">${t.lines}</th><th scope="col">${t.status}</th><th scope="col">${t.created}</th></tr></thead><tbody>${rows}</tbody></table></div>
${rows.length >= view.shown ? html`<p class="muted">${t.newest(view.shown)}</p>` : ''}`
    : html`<p>${t.noPayouts}</p>`
}
</section>`;
  return dashboardPage(chrome, t.title, body);
}

/** One payout (admins): its figures and status, its lines (the first `shown`), and the CSV of all of them. */
export function payoutPage(chrome: Chrome, p: PayoutRow & { commission_cents: number }, lines: PayoutLineRow[], truncated: number | false): string {
  const t = DASHBOARD_TEXT[chrome.lang].payouts;
  // Gross, commission and payout are named as the daily report names them (its texts).
  const figures = DASHBOARD_TEXT[chrome.lang].report;
  const totals = payoutTotalsView(p);
  const id = toPublicId('po', p.id);
  const money = (cents: number) => formatMoney(cents, p.currency, chrome.lang);
  const when = (d: Date | null) => (d ? formatDateTime(d, chrome.lang, chrome.timeZone) : '—');
  const rows = lines.map((l) => {
    const purchase = l.purchase_id === null ? undefined : toPublicId('pur', l.purchase_id);
    // Named by the merchant's reference, as the purchases list names it; its id when it has none.
    return html`<tr><td>${purchase ? html`<a href="/dashboard/purchases/${purchase}">${l.purchase_ref ?? purchase}</a>` : '—'}</td><td>${t.events[l.kind] ?? l.kind}</td><td class="num">${money(l.amount_cents + l.commission_cents)}</td><td class="num">${money(l.commission_cents)}</td><td class="num">${money(l.amount_cents)}</td><td>${when(l.occurred_at)}</td></tr>`;
  });
  const body = html`<p><a href="/dashboard/payouts">${t.back}</a></p>
<h1>${t.payoutTitle(id)}</h1>
<section class="card" aria-labelledby="payout-facts"><h2 id="payout-facts">${t.amount}</h2>
<dl class="facts">
<dt>${t.day}</dt><dd>${formatDate(p.business_day, chrome.lang)}</dd>
<dt>${figures.gross}</dt><dd>${money(totals.gross_cents)}</dd>
<dt>${figures.commission}</dt><dd>${money(totals.commission_cents)}</dd>
<dt>${t.amount}</dt><dd>${money(p.amount_cents)}</dd>
<dt>${t.lines}</dt><dd>${p.line_count}</dd>
<dt>${t.status}</dt><dd>${t.statusNames[p.status] ?? p.status}</dd>
<dt>${t.created}</dt><dd>${when(p.created_at)}</dd>
</dl>
<p><a href="/api/backoffice/payouts/${id}/lines.csv" download>${t.csv}</a></p>
</section>
<section class="card" aria-labelledby="payout-lines"><h2 id="payout-lines">${t.lines}</h2>
${truncated ? html`<p class="muted">${t.linesTooMany(truncated)}</p>` : ''}
<div class="scroll" tabindex="0" role="region" aria-label="${t.lines}"><table class="list"><thead><tr><th scope="col">${t.purchase}</th><th scope="col">${t.event}</th><th scope="col" class="num">${figures.gross}</th><th scope="col" class="num">${figures.commission}</th><th scope="col" class="num">${figures.payout}</th><th scope="col">${t.booked}</th></tr></thead><tbody>${rows}</tbody></table></div>
</section>`;
  return dashboardPage(chrome, t.payoutTitle(id), body);
}
