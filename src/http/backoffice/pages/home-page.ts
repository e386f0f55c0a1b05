import { html, type SafeHtml } from '../../../html/html.ts';
import { addDays } from '../../../domain/dates.ts';
import { formatDate, formatDateTime, formatMoney } from '../../../i18n/format.ts';
import { HOME_DAYS, type HomeStats } from '../../../use-cases/back-office/home-stats.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

const CHART = { width: 600, height: 160, gap: 4 };

/** Every day of the window, oldest first, with that day's purchases in `currency` (0 when none). */
function series(stats: HomeStats, currency: string): { day: string; created: number; amountCents: number }[] {
  return Array.from({ length: HOME_DAYS }, (_, i) => {
    const day = addDays(stats.from, i);
    const row = stats.days.find((d) => d.day === day && d.currency === currency);
    return { day, created: row?.created ?? 0, amountCents: row?.amountCents ?? 0 };
  });
}

/**
 * The daily volume as an inline SVG bar chart (no script, drawn on the server), for eyes; the
 * same figures follow as a table, for screen readers and anyone who wants the numbers. The chart
 * is hidden from assistive technology so the figures are not read twice. Its labels are HTML
 * beside the SVG, not SVG text: the SVG scales down to a phone's width, and its text with it (to
 * 7px at 390px wide), while HTML text keeps the page's size.
 */
function chart(days: { day: string; amountCents: number }[], currency: string, chrome: Chrome): SafeHtml {
  const t = DASHBOARD_TEXT[chrome.lang];
  const top = Math.max(0, ...days.map((d) => d.amountCents));
  const max = Math.max(1, top);
  const slot = CHART.width / days.length;
  const bars = days.map((d, i) => {
    // Integer arithmetic on cents: the bar's height in pixels, at least 1 for a day with sales.
    const h = d.amountCents ? Math.max(1, Math.round((d.amountCents * CHART.height) / max)) : 0;
    return html`<rect x="${String(i * slot + CHART.gap / 2)}" y="${String(CHART.height - h)}" width="${String(slot - CHART.gap)}" height="${String(h)}" fill="#2f5bd3"></rect>`;
  });
  const first = days[0]!.day;
  const last = days[days.length - 1]!.day;
  return html`<figure class="chart" aria-hidden="true">
<figcaption class="muted">${t.chartOf(currency)}</figcaption>
<div class="chart-top">${formatMoney(top, currency, chrome.lang)}</div>
<svg class="chart" viewBox="0 0 ${String(CHART.width)} ${String(CHART.height + 1)}" width="100%" focusable="false" preserveAspectRatio="none">
<line x1="0" y1="${String(CHART.height + 0.5)}" x2="${String(CHART.width)}" y2="${String(CHART.height + 0.5)}" stroke="#6b7385"></line>
${bars}
</svg>
<div class="chart-axis"><span>${formatDate(first, chrome.lang)}</span><span>${formatDate(last, chrome.lang)}</span></div>
</figure>`;
}

export function homePage(chrome: Chrome, stats: HomeStats): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const money = (cents: number, currency: string) => formatMoney(cents, currency, chrome.lang);
  // The chart shows the currency most purchases were made in; the table lists every currency.
  const byCurrency = new Map<string, number>();
  for (const d of stats.days) byCurrency.set(d.currency, (byCurrency.get(d.currency) ?? 0) + d.created);
  const main = [...byCurrency.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
  const figure = (label: string, value: string | number, href?: string) =>
    html`<div class="figure"><dt>${label}</dt><dd>${href ? html`<a href="${href}">${String(value)}</a>` : String(value)}</dd></div>`;
  const range = `from=${stats.from}&to=${stats.to}`;
  const { deliveries: dl, pots } = stats;
  const failure = dl.lastFailure;
  const body = html`<h1>${t.home}</h1>
<p class="muted">${t.homePeriod(formatDate(stats.from, chrome.lang), formatDate(stats.to, chrome.lang), chrome.timeZone)}</p>
<section class="card" aria-labelledby="h-purchases"><h2 id="h-purchases">${t.purchases}</h2>
<dl class="figures">
${figure(t.statCreated, stats.created, `/dashboard/purchases?${range}`)}
${figure(t.statPaid, stats.paid, `/dashboard/purchases?state=SUCCESSFUL&${range}`)}
${figure(t.statFailed, stats.failed, `/dashboard/purchases?state=FAILED&${range}`)}
${figure(t.statRefunded, stats.refunded, `/dashboard/purchases?state=REFUNDED&${range}`)}
</dl>
${
  stats.money.length
    ? html`<dl class="figures">${stats.money.map((m) => html`${figure(t.statCollected(m.currency), money(m.collectedCents, m.currency))}${figure(t.statRefundedAmount(m.currency), money(m.refundedCents, m.currency))}`)}</dl>`
    : ''
}
<p class="muted">${t.homeCohort}</p>
</section>
<section class="card" aria-labelledby="h-volume"><h2 id="h-volume">${t.dailyVolume}</h2>
${
  main
    ? html`${chart(series(stats, main), main, chrome)}
<details><summary>${t.dailyTable}</summary>
<div class="scroll" tabindex="0" role="region" aria-label="${t.dailyVolume}"><table class="list"><thead><tr><th scope="col">${t.day}</th><th scope="col" class="num">${t.purchasesCreated}</th><th scope="col" class="num">${t.amountCreated}</th></tr></thead>
<tbody>${[...byCurrency.keys()].sort().flatMap((c) =>
        series(stats, c)
          .filter((d) => d.created > 0)
          .map((d) => html`<tr><td>${formatDate(d.day, chrome.lang)}</td><td class="num">${String(d.created)}</td><td class="num">${money(d.amountCents, c)}</td></tr>`),
      )}</tbody></table></div>
</details>`
    : html`<p>${t.noPurchaseYet}</p>`
}
</section>
<section class="card" aria-labelledby="h-pots"><h2 id="h-pots">${t.pots}</h2>
<dl class="figures">
${figure(t.potsByFriends, pots.byFriends)}
${figure(t.potsByLeader, pots.byLeader)}
${figure(t.potsRestRefused, pots.restRefused)}
</dl>
</section>
<section class="card" aria-labelledby="h-webhooks"><h2 id="h-webhooks">${t.webhookHealth}</h2>
<dl class="figures">
${figure(t.deliveryStandingNames.delivered, dl.delivered, '/dashboard/developers')}
${figure(t.deliveryStandingNames.failing, dl.failing, '/dashboard/developers')}
${figure(t.deliveryStandingNames.pending, dl.pending, '/dashboard/developers')}
</dl>
${
  failure
    ? html`<p class="alert">${t.lastFailure(formatDateTime(failure.at, chrome.lang, chrome.timeZone), failure.triggerName ?? failure.kind, failure.statusCode === null ? (failure.error ?? '—') : `HTTP ${failure.statusCode}`)}</p>`
    : html`<p class="muted">${t.noFailure}</p>`
}
</section>`;
  return dashboardPage(chrome, t.home, body);
}
