import { html, type SafeHtml } from '../../../html/html.ts';
import { addDays } from '../../../domain/dates.ts';
import { formatDate, formatMoney } from '../../../i18n/format.ts';
import type { DailyReportRow } from '../../../reports/report-repository.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

const CHART = { width: 600, height: 160, gap: 2 };

export interface ReportsView {
  from: string;
  to: string;
  rows: DailyReportRow[];
  /** More rows than the page shows (the CSV has them all). */
  truncated: number | false;
  /** The period refused: the message naming the field. */
  error?: string;
}

/** Every day of the period, oldest first, with its net in `currency` over every PSP account (0 when none). */
function netPerDay(view: ReportsView, currency: string): { day: string; netCents: number }[] {
  const net = new Map<string, number>();
  for (const r of view.rows) if (r.currency === currency) net.set(r.day, (net.get(r.day) ?? 0) + r.netCents);
  const days: { day: string; netCents: number }[] = [];
  for (let day = view.from; day <= view.to; day = addDays(day, 1)) days.push({ day, netCents: net.get(day) ?? 0 });
  return days;
}

/**
 * Net per day as an inline SVG bar chart drawn on the server (no script, no dependency): bars above
 * the axis for a positive net, below it for a negative one. It is an image with a title for
 * assistive technology; the figures themselves are the table that follows it.
 */
function chart(days: { day: string; netCents: number }[], currency: string, chrome: Chrome, id: string): SafeHtml {
  const t = DASHBOARD_TEXT[chrome.lang].report;
  const up = Math.max(0, ...days.map((d) => d.netCents));
  const down = Math.max(0, ...days.map((d) => -d.netCents));
  const span = Math.max(1, up + down);
  // Integer arithmetic on cents: the axis's height and each bar's, at least 1 pixel for a day with a net.
  const axis = Math.round((up * CHART.height) / span);
  const slot = CHART.width / days.length;
  const bars = days.map((d, i) => {
    const h = d.netCents ? Math.max(1, Math.round((Math.abs(d.netCents) * CHART.height) / span)) : 0;
    const y = d.netCents >= 0 ? axis - h : axis;
    return html`<rect x="${String(i * slot + CHART.gap / 2)}" y="${String(y)}" width="${String(Math.max(1, slot - CHART.gap))}" height="${String(h)}" fill="${d.netCents >= 0 ? '#2f5bd3' : '#b3261e'}"></rect>`;
  });
  const from = formatDate(days[0]!.day, chrome.lang);
  const to = formatDate(days[days.length - 1]!.day, chrome.lang);
  return html`<figure class="chart">
<figcaption class="muted">${t.chartOf(currency)}</figcaption>
<div class="chart-top">${formatMoney(up, currency, chrome.lang)}</div>
<svg class="chart" role="img" aria-labelledby="${id}" viewBox="0 0 ${String(CHART.width)} ${String(CHART.height + 1)}" width="100%" focusable="false" preserveAspectRatio="none">
<title id="${id}">${t.chartTitle(currency, from, to)}</title>
<line x1="0" y1="${String(axis + 0.5)}" x2="${String(CHART.width)}" y2="${String(axis + 0.5)}" stroke="#6b7385"></line>
${bars}
</svg>
${down > 0 ? html`<div class="chart-top">−${formatMoney(down, currency, chrome.lang)}</div>` : ''}
<div class="chart-axis"><span>${from}</span><span>${to}</span></div>
</figure>`;
}

/**
 * The daily finance report (admins, docs/money-operations.md#reports): the period's form, a
 * chart of the net per day for each currency, and the table of every row, with the CSV's link.
 */
export function reportsPage(chrome: Chrome, view: ReportsView): string {
  const all = DASHBOARD_TEXT[chrome.lang];
  const t = all.report;
  const money = (cents: number, currency: string) => formatMoney(cents, currency, chrome.lang);
  const currencies = [...new Set(view.rows.map((r) => r.currency))].sort();
  const range = new URLSearchParams({ from: view.from, to: view.to }).toString();
  const body = html`<h1>${t.title}</h1>
<p class="muted">${t.intro(chrome.timeZone)}</p>
${view.error ? html`<div class="alert" role="alert" id="period-error">${t.badPeriod}${view.error}</div>` : ''}
<form method="get" action="/dashboard/reports" class="card">
<p><label for="from">${t.from}</label> <input id="from" name="from" type="date" required value="${view.from}"${view.error ? html` aria-describedby="period-error"` : ''}>
<label for="to">${t.to}</label> <input id="to" name="to" type="date" required value="${view.to}">
<button type="submit">${t.show}</button></p>
</form>
${
  view.error
    ? ''
    : html`<p><a href="/api/backoffice/reports/daily.csv?${range}" download>${t.csv}</a></p>
${
  view.rows.length === 0
    ? html`<p>${t.nothing}</p>`
    : html`<section class="card" aria-labelledby="h-net"><h2 id="h-net">${t.net}</h2>
${currencies.map((c, i) => chart(netPerDay(view, c), c, chrome, `chart-title-${String(i)}`))}
</section>
<section class="card" aria-labelledby="h-table"><h2 id="h-table">${t.table}</h2>
<p class="muted">${t.payoutNote}</p>
${view.truncated ? html`<p class="alert">${t.tooMany(view.truncated)}</p>` : ''}
<div class="scroll" tabindex="0" role="region" aria-labelledby="h-table"><table class="list"><thead><tr><th scope="col">${all.day}</th><th scope="col">${t.pspAccount}</th><th scope="col">${t.currency}</th><th scope="col" class="num">${t.captured}</th><th scope="col" class="num">${t.refunded}</th><th scope="col" class="num">${t.chargedBack}</th><th scope="col" class="num">${t.fees}</th><th scope="col" class="num">${t.net}</th><th scope="col" class="num">${t.gross}</th><th scope="col" class="num">${t.commission}</th><th scope="col" class="num">${t.payout}</th><th scope="col" class="num">${t.outcomes}</th></tr></thead>
<tbody>${view.rows.map(
        (r) =>
          html`<tr><td>${formatDate(r.day, chrome.lang)}</td><td>${r.psp}${r.pspAccountId === null ? html` <span class="muted">(${t.builtInSandbox})</span>` : html` · ${r.pspAccountLabel ?? r.pspAccountId}`}</td><td>${r.currency}</td><td class="num">${money(r.capturedCents, r.currency)}</td><td class="num">${money(r.refundedCents, r.currency)}</td><td class="num">${money(r.chargedBackCents, r.currency)}</td><td class="num">${money(r.feesCents, r.currency)}</td><td class="num">${money(r.netCents, r.currency)}</td><td class="num">${money(r.grossCents, r.currency)}</td><td class="num">${money(r.commissionCents, r.currency)}</td><td class="num">${money(r.payoutCents, r.currency)}</td><td class="num">${`${r.outcomes.SUCCESSFUL} · ${r.outcomes.FAILED} · ${r.outcomes.CANCELLED + r.outcomes.ABORTED} · ${r.outcomes.REFUNDED}`}</td></tr>`,
      )}</tbody></table></div>
</section>`
}`
}`;
  return dashboardPage(chrome, t.title, body);
}
