import { toPublicId } from '../../../domain/ids.ts';
import { deliveryStanding, toDeliveryUid, type DeliveryKind } from '../../../delivery/delivery.ts';
import { V1_STATE } from '../../../domain/purchase-states.ts';
import { html, type SafeHtml } from '../../../html/html.ts';
import { formatDate, formatDateTime, formatMoney } from '../../../i18n/format.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import type { PurchaseDetail } from '../../../use-cases/back-office/purchase-detail.ts';
import type { RefundShare } from '../../../use-cases/refunds/refund-preview.ts';
import { auditLine } from './audit-line.ts';
import type { EnFr } from '../../../i18n/lang.ts';
import { DASHBOARD_TEXT } from '../texts.ts';
import { commentIn } from '../purchase-comment.ts';
import type { EventType } from '../../../domain/events.ts';
import type { PurchaseState } from '../../../domain/purchase-states.ts';
import type { RiskDecisionRow } from '../../../risk/risk-decision-repository.ts';

/** What the page says after an action, or the action's refusal (a field error names its field). */
export interface PurchaseNotice {
  done?: 'refund' | 'cancel' | 'evidence' | 'evidence_submitted';
  error?: string;
  /** The refund form's field the error is about: shown by it, the field focused, not at the top of the page. */
  field?: 'amount';
  /** The refund form as typed, shown back after a refusal. */
  amount?: string;
  reason?: string;
}

/** What the purchase's payments captured, refunds not deducted. */
function capturedOf(d: PurchaseDetail): number {
  return d.payments.reduce((sum, p) => sum + p.capturedCents, 0);
}

/** The PSPs call a payment `refunded` once any part of it is: only all of it is "refunded". */
function partlyRefunded(x: { status: string; capturedCents: number; refundedCents: number }): boolean {
  return x.status === 'refunded' && x.refundedCents < x.capturedCents;
}

function table(caption: string, head: string[], rows: SafeHtml[], none: string): SafeHtml {
  return rows.length
    ? // Focusable, so a keyboard can scroll a table wider than a phone (WCAG 2.1.1).
      html`<div class="scroll" tabindex="0" role="region" aria-label="${caption}"><table class="list"><caption class="sr">${caption}</caption><thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p class="muted">${none}</p>`;
}

export function purchasePage(chrome: Chrome, d: PurchaseDetail, notice: PurchaseNotice = {}): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const { purchase: p } = d;
  const uid = toPublicId('pur', p.id);
  const money = (cents: number) => formatMoney(cents, p.currency, chrome.lang);
  const when = (date: Date) => formatDateTime(date, chrome.lang, chrome.timeZone);
  const state = t.stateNames[V1_STATE[p.state]];
  const comment = commentIn(chrome.lang, p.comment);
  const left = d.refundableCents;
  const canRefund = (p.state === 'LEADER_PROCESSED' || p.state === 'SUCCESSFUL') && left > 0;
  // Offered only when the cancel itself would go ahead (its rule, PurchaseDetail.cancelBar).
  const canCancel = d.cancelBar === undefined;
  const client = [p.client.firstName, p.client.lastName].filter(Boolean).join(' ');
  // A refused amount is said under its label, and the field focused (on a phone the page's top is far from it).
  const amountError = notice.error !== undefined && notice.field === 'amount' && canRefund ? notice.error : undefined;

  const body = html`<p><a href="/dashboard/purchases">${t.backToPurchases}</a></p>
<h1>${t.purchase} ${p.ref ?? ''} <span class="state">${state}</span></h1>
${notice.done ? html`<div class="ok" role="status">${doneText(t, notice.done)}</div>` : ''}
${notice.error && !amountError ? html`<div class="alert" role="alert" id="action-error">${notice.error}</div>` : ''}
<section class="card" aria-labelledby="details"><h2 id="details">${t.details}</h2>
<dl class="facts">
<dt>${t.purchaseId}</dt><dd>${uid}</dd>
<dt>${t.reference}</dt><dd>${p.ref ?? '—'}</dd>
<dt>${t.title}</dt><dd>${p.title}</dd>
<dt>${t.client}</dt><dd>${client ? `${client} · ` : ''}${p.client.email}</dd>
<dt>${t.amount}</dt><dd>${money(p.amountCents)}</dd>
<dt>${t.refunded}</dt><dd>${money(p.refundedCents)}</dd>
${d.chargedBackCents > 0 ? html`<dt>${t.disputes.lostToChargebacks}</dt><dd>${money(d.chargedBackCents)}</dd>` : ''}
${p.refundedCents > 0 || d.chargedBackCents > 0 ? html`<dt>${t.net}</dt><dd>${money(capturedOf(d) - p.refundedCents - d.chargedBackCents)}</dd>` : ''}
<dt>${t.state}</dt><dd>${state} — ${comment.translated ? comment.text : html`<span lang="en">${comment.text}</span>`}</dd>
<dt>${t.created}</dt><dd>${when(p.createdAt)}</dd>
</dl></section>
${
  canRefund
    ? html`<section class="card actions" aria-labelledby="refund-heading"><h2 id="refund-heading">${t.refundHeading}</h2>
${d.cancelBar === 'captured' ? html`<p class="muted">${t.cancelCapturedHint}</p>` : ''}
<form method="post" action="/dashboard/purchases/${uid}/refund">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<label for="amount">${t.amount}</label>
${amountError ? html`<p class="field-error" role="alert" id="amount-error">${amountError}</p>` : ''}
<input id="amount" name="amount" inputmode="decimal" autocomplete="off" value="${notice.amount ?? ''}"${
        amountError ? html` aria-invalid="true" aria-describedby="amount-error amount-hint" autofocus` : html` aria-describedby="amount-hint"`
      }>
<span class="muted" id="amount-hint">${t.refundHint(money(left))}</span>
<label for="reason">${t.reasonOptional}</label>
<input id="reason" name="reason" maxlength="500" autocomplete="off" value="${notice.reason ?? ''}">
<p><button type="submit">${t.refundAction}</button></p>
</form></section>`
    : ''
}
${
  canCancel
    ? html`<section class="card actions" aria-labelledby="cancel-heading"><h2 id="cancel-heading">${t.cancelHeading}</h2>
<p class="muted">${t.cancelHint}</p>
<form method="post" action="/dashboard/purchases/${uid}/cancel">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<button type="submit" class="secondary">${t.cancelAction}</button>
</form></section>`
    : ''
}
<section class="card" aria-labelledby="payments"><h2 id="payments">${t.payments}</h2>
${table(
  t.payments,
  [t.purpose, t.status, t.amount, t.captured, t.refunded, t.net, t.created],
  d.payments.map(
    (x) =>
      html`<tr><td>${purposeOf(t, d, x)}</td><td>${paymentStatusOf(t, x)}</td><td>${money(x.amountCents)}</td><td>${money(x.capturedCents)}</td><td>${money(x.refundedCents)}</td><td>${money(x.capturedCents - x.refundedCents)}</td><td>${when(x.createdAt)}</td></tr>`,
  ),
  t.none,
)}</section>
${
  d.pledges.length
    ? html`<section class="card" aria-labelledby="pledges"><h2 id="pledges">${t.pledges}</h2>
${table(
  t.pledges,
  [t.client, t.amount, t.status],
  d.pledges.map(
    (x) => html`<tr><td>${[x.name, x.email ?? x.phoneNumber].filter(Boolean).join(' · ')}</td><td>${money(x.amountCents)}</td><td>${t.pledgeStateNames[x.state]}</td></tr>`,
  ),
  t.none,
)}</section>`
    : ''
}
${
  d.installments.length
    ? html`<section class="card" aria-labelledby="installments"><h2 id="installments">${t.installments}</h2>
${table(
  t.installments,
  ['#', t.dueDate, t.amount, t.status],
  d.installments.map(
    (x) =>
      html`<tr><td>${x.index + 1}</td><td>${formatDate(x.dueDate, chrome.lang)}</td><td>${money(x.amountCents + x.feesCents)}</td><td>${t.installmentStateNames[x.state as keyof typeof t.installmentStateNames] ?? x.state}</td></tr>`,
  ),
  t.none,
)}</section>`
    : ''
}
<section class="card" aria-labelledby="refunds"><h2 id="refunds">${t.refunds}</h2>
${table(
  t.refunds,
  [t.amount, t.reason, t.status, t.created],
  d.refunds.map((x) => html`<tr><td>${money(x.amountCents)}</td><td>${x.reason ?? '—'}</td><td>${t.refundStateNames[x.state]}</td><td>${when(x.createdAt)}</td></tr>`),
  t.none,
)}</section>
${d.disputes.length ? disputesSection(chrome, d) : ''}
<section class="card" aria-labelledby="purchase-deliveries"><h2 id="purchase-deliveries">${t.purchaseDeliveries}</h2>
${table(
  t.purchaseDeliveries,
  [t.created, t.event, t.status, t.attempts, t.lastAnswer],
  d.deliveries.map(
    (x) =>
      html`<tr><td>${when(x.createdAt)}</td><td>${deliveryName(x, chrome.lang)}<br><span class="muted">${toDeliveryUid(x.id)}</span></td><td>${t.deliveryStandingNames[deliveryStanding(x)]}</td><td>${x.attempts}</td><td>${x.lastStatusCode ?? x.lastError ?? '—'}</td></tr>`,
  ),
  t.none,
)}</section>
<section class="card" aria-labelledby="timeline"><h2 id="timeline">${t.timeline}</h2>
<ol class="timeline">${timeline(d, chrome.lang).map((e) => html`<li><time datetime="${e.at.toISOString()}">${when(e.at)}</time> — ${e.what}</li>`)}</ol></section>`;
  return dashboardPage(chrome, `${t.purchase} ${p.ref ?? uid}`, body);
}

/** What a payment paid for; a friend's share says whose, by the pledge's name, else its e-mail, else its phone number. */
function purposeOf(t: (typeof DASHBOARD_TEXT)[EnFr], d: PurchaseDetail, x: PurchaseDetail['payments'][number]): string {
  const purpose = t.purposeNames[x.purpose as keyof typeof t.purposeNames] ?? x.purpose;
  const pledge = x.pledgeId === null ? undefined : d.pledges.find((p) => p.id === x.pledgeId);
  const who = pledge && (pledge.name ?? pledge.email ?? pledge.phoneNumber);
  return who ? t.friendShareOf(who) : purpose;
}

/** A payment's status in words; a declined one says why, from the refusal code the payment recorded. */
function paymentStatusOf(t: (typeof DASHBOARD_TEXT)[EnFr], x: PurchaseDetail['payments'][number]): string {
  if (partlyRefunded(x)) return t.partlyRefunded;
  if (x.status === 'declined' && x.declineReason) return t.declinedBecause(t.declineReasonNames[x.declineReason] ?? x.declineReason);
  return t.paymentStatusNames[x.status as keyof typeof t.paymentStatusNames] ?? x.status;
}

function doneText(t: (typeof DASHBOARD_TEXT)[EnFr], done: NonNullable<PurchaseNotice['done']>): string {
  switch (done) {
    case 'refund':
      return t.refundDone;
    case 'cancel':
      return t.cancelDone;
    case 'evidence':
      return t.disputes.evidenceDone;
    case 'evidence_submitted':
      return t.disputes.evidenceSubmitted;
  }
}

/**
 * The purchase's disputes (docs/money-operations.md#disputes): kind, state, reason, amount and
 * evidence deadline; an open one has the form that marks its evidence as sent.
 */
function disputesSection(chrome: Chrome, d: PurchaseDetail): SafeHtml {
  const t = DASHBOARD_TEXT[chrome.lang];
  const td = t.disputes;
  const money = (cents: number, currency: string) => formatMoney(cents, currency, chrome.lang);
  const when = (date: Date | null) => (date ? formatDateTime(date, chrome.lang, chrome.timeZone) : td.noDeadline);
  const open = d.disputes.filter((x) => x.state === 'open');
  return html`<section class="card" aria-labelledby="disputes"><h2 id="disputes">${td.heading}</h2>
${table(
  td.heading,
  [td.kind, td.state, td.reason, td.amount, td.deadline, td.opened],
  d.disputes.map(
    (x) =>
      html`<tr><td>${td.kindNames[x.kind]}<br><span class="muted">${x.psp} · ${x.psp_dispute_id}</span></td><td>${td.stateNames[x.state]}</td><td>${x.reason ?? '—'}</td><td>${money(x.amount_cents, x.currency)}</td><td>${when(x.evidence_due_at)}</td><td>${when(x.opened_at)}</td></tr>`,
  ),
  td.none,
)}
${open.map(
  (x) => html`<form method="post" action="/dashboard/disputes/${toPublicId('dsp', x.id)}/evidence">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<label for="evidence-${x.id}">${td.evidenceLabel} — ${td.kindNames[x.kind]} ${money(x.amount_cents, x.currency)}</label>
<textarea id="evidence-${x.id}" name="text" rows="3" maxlength="20000"></textarea>
<p><button type="submit">${td.evidenceAction}</button></p>
</form>`,
)}</section>`;
}

/**
 * "Webhook paymentProcessed" (the contract's trigger name), "Notification" (back mode's signed
 * payment notification), "Error notification" (to the purchase's errorNotificationUrl) or
 * "Purchase end notification" (to the offer's purchase end notification URL).
 */
function deliveryName(x: { kind: DeliveryKind; triggerName: string | null }, lang: EnFr): string {
  if (x.kind === 'webhook') return `Webhook ${x.triggerName ?? ''}`.trim();
  const t = DASHBOARD_TEXT[lang];
  return x.kind === 'refusal' ? t.refusalNotification : x.kind === 'purchase_end' ? t.purchaseEndNotification : t.notification;
}

/** The purchase's events, every delivery attempt and the staff's actions on it (who did it), oldest first. */
function timeline(d: PurchaseDetail, lang: EnFr): { at: Date; what: SafeHtml | string }[] {
  const t = DASHBOARD_TEXT[lang];
  // Events record internal states; staff know them by the names v1 shows (ABORTED reads as cancelled).
  const stateName = (s: string) => t.stateNames[V1_STATE[s as PurchaseState]] ?? s;
  return [
    ...d.events.map((e) => ({
      at: e.createdAt,
      // A PSP transaction or a pledge moves without the purchase's state changing: its state once, not "Paid → Paid".
      what: html`${t.eventNames[e.type as EventType] ?? e.type}${e.fromState && stateName(e.fromState) !== stateName(e.toState) ? html` (${stateName(e.fromState)} → ${stateName(e.toState)})` : html` (${stateName(e.toState)})`}`,
    })),
    ...d.attempts.map((a) => ({
      at: a.startedAt,
      what: t.attemptLine(deliveryName(a, lang), a.attempt, a.statusCode === null ? (a.error ?? '—') : `HTTP ${a.statusCode}`, t.attemptOutcomeNames[a.outcome]),
    })),
    ...d.audit.map((a) => ({ at: a.createdAt, what: auditLine(lang, a) })),
    ...d.decisions.map((x) => ({ at: x.createdAt, what: decisionLine(x, lang) })),
  ].sort((x, y) => x.at.getTime() - y.at.getTime());
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * A payment-time risk decision on the timeline (docs/risk.md#decisions-as-records): whose card,
 * the outcome, each reason in words with its code, the score, the card as recorded (brand, last
 * four, funding, issuing country; never more of its number), Chipin's fingerprint, the latency and
 * the scoring hook's verdict when it was asked.
 */
function decisionLine(x: RiskDecisionRow, lang: EnFr): SafeHtml {
  const t = DASHBOARD_TEXT[lang].riskDecision;
  const card = (x.inputs.card ?? {}) as Record<string, unknown>;
  const score = x.score && typeof x.score === 'object' && typeof (x.score as { value?: unknown }).value === 'number' ? (x.score as { value: number }).value : undefined;
  const funding = text(card.funding);
  const cardText = [
    [text(card.brand), text(card.last4) ? `•••• ${text(card.last4)}` : undefined].filter(Boolean).join(' '),
    funding ? (t.funding[funding] ?? funding) : undefined,
    text(card.country),
  ]
    .filter(Boolean)
    .join(', ');
  const hook = x.hook;
  const hookOutcome = hook ? (t.hookOutcomes[String(hook.outcome)] ?? String(hook.outcome)) : undefined;
  const facts: (SafeHtml | string)[] = [
    ...(score !== undefined ? [t.score(score)] : []),
    ...(cardText ? [`${t.card} ${cardText}`] : []),
    ...(x.cardFingerprint ? [html`${t.fingerprint} <code>${x.cardFingerprint}</code>`] : []),
    t.latency(x.latencyMs),
    ...(hook && hookOutcome ? [hook.source === 'default' ? t.hookDefault(hookOutcome, String(hook.error ?? '')) : t.hook(hookOutcome)] : []),
  ];
  const reasons = x.reasons.map((r) => html`${t.reasons[r.code as keyof typeof t.reasons] ?? r.message} (<code>${r.code}</code>)`);
  return html`<span class="risk-decision" data-outcome="${x.outcome}">${t.line(t.who[x.purpose], t.outcomes[x.outcome])}${
    reasons.length ? html` — ${reasons.map((r, i) => html`${i ? ', ' : ''}${r}`)}` : ''
  }<br><span class="muted">${facts.map((f, i) => html`${i ? ' · ' : ''}${f}`)}</span></span>`;
}

/** The confirmation step of a refund or a cancellation: the same form again, with `confirm=yes`. */
export function confirmPage(
  chrome: Chrome,
  d: PurchaseDetail,
  action: { kind: 'refund'; amountCents?: number; amount: string; reason: string; shares: RefundShare[] } | { kind: 'cancel' },
): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const p = d.purchase;
  const uid = toPublicId('pur', p.id);
  const title = action.kind === 'refund' ? t.confirmRefundTitle : t.confirmCancelTitle;
  const question =
    action.kind === 'cancel'
      ? t.confirmCancel(p.client.email)
      : action.amountCents === undefined
        ? t.confirmRefundAll(p.client.email)
        : t.confirmRefund(formatMoney(action.amountCents, p.currency, chrome.lang), p.client.email);
  const body = html`<div class="card"><h1>${title}</h1>
<p>${p.title} — ${formatMoney(p.amountCents, p.currency, chrome.lang)} — ${uid}</p>
<p><strong>${question}</strong></p>
${action.kind === 'refund' ? refundSplit(chrome, d, action.shares) : ''}
<form method="post" action="/dashboard/purchases/${uid}/${action.kind}">
<input type="hidden" name="csrf" value="${chrome.csrf}">
<input type="hidden" name="confirm" value="yes">
${action.kind === 'refund' ? html`<input type="hidden" name="amount" value="${action.amount}"><input type="hidden" name="reason" value="${action.reason}">` : ''}
<p><button type="submit">${action.kind === 'refund' ? t.confirmRefundButton : t.confirmCancelButton}</button></p>
</form>
<p><a class="button secondary" href="/dashboard/purchases/${uid}">${t.goBack}</a></p>
</div>`;
  return dashboardPage(chrome, title, body);
}

/** Who gets what back, as the refund rule splits it (src/use-cases/refunds/refund-preview.ts): one line per payer. */
function refundSplit(chrome: Chrome, d: PurchaseDetail, shares: RefundShare[]): SafeHtml {
  const t = DASHBOARD_TEXT[chrome.lang];
  const money = (cents: number) => formatMoney(cents, d.purchase.currency, chrome.lang);
  const who = (s: RefundShare) => {
    if (s.payer === 'leader') return t.refundLeader(d.purchase.client.email);
    const pledge = d.pledges.find((p) => p.id === s.pledgeId);
    return t.refundPledger([pledge?.name, pledge?.email ?? pledge?.phoneNumber].filter(Boolean).join(' · ') || '—');
  };
  return html`<section aria-labelledby="split"><h2 id="split">${t.refundSplitHeading}</h2>
<ul>${shares.map(
    (s) =>
      html`<li>${who(s)}${s.refundCents > 0 ? html`<br>${t.refundToCard(money(s.refundCents))}` : ''}${s.uncollectedCents > 0 ? html`<br>${t.refundUncollected(money(s.uncollectedCents))}` : ''}</li>`,
  )}</ul></section>`;
}
