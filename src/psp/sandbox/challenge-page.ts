import { formatMoney } from '../../i18n/format.ts';
import { esc, layout } from '../../pages/html.ts';
import type { ChallengeView } from './connector.ts';

/**
 * The sandbox's stand-in for a bank's 3-D Secure page: the tester chooses the outcome. English
 * only, like the rest of the sandbox tooling. Inline `style` attributes only (the page CSP allows
 * inline styles and nothing else).
 */

const BUTTON =
  'display:block;width:100%;min-height:48px;margin:.75rem 0 0;padding:.7rem 1rem;font:inherit;font-weight:600;border-radius:8px;cursor:pointer;';
const PRIMARY = BUTTON + 'background:#1d4ed8;color:#fff;border:2px solid #1d4ed8';
const SECONDARY = BUTTON + 'background:#fff;color:#9f1239;border:2px solid #9f1239';

const BANNER = '<p class="state">Sandbox · test mode</p>';

export function returnLink(returnUrl: string, transactionId: string): string {
  const url = new URL(returnUrl);
  url.searchParams.set('transaction_id', transactionId);
  return url.toString();
}

export function challengePage(view: ChallengeView): string {
  const amount = formatMoney(view.amountCents, view.currency, 'en');
  const card = `${view.brand === 'unknown' ? 'Card' : view.brand.toUpperCase()} ending in ${view.last4}`;
  if (!view.pending) {
    return layout(
      'en',
      'Authentication finished',
      `<div class="card">${BANNER}
<h1>Authentication finished</h1>
<p>This 3-D Secure check is already finished; nothing more to do here.</p>
<p><a href="${esc(returnLink(view.returnUrl, view.transactionId))}">Return to the shop</a></p>
</div>`,
    );
  }
  return layout(
    'en',
    'Confirm your payment',
    `<div class="card">${BANNER}
<h1 id="title">Confirm your payment</h1>
<p class="muted">Your bank asks you to confirm this payment with 3-D Secure. This is the Chipin sandbox: no bank and no real money are involved. Choose how the check ends.</p>
<p class="amount">${esc(amount)}</p>
<p>${esc(card)}</p>
<form method="post" aria-labelledby="title">
<input type="hidden" name="token" value="${esc(view.token)}">
<button type="submit" name="outcome" value="complete" style="${PRIMARY}">Complete authentication</button>
<button type="submit" name="outcome" value="fail" style="${SECONDARY}">Fail authentication</button>
</form>
</div>`,
  );
}

/** A short page for errors (unknown challenge, refused form). */
export function challengeMessagePage(title: string, text: string): string {
  return layout('en', title, `<div class="card">${BANNER}<h1>${esc(title)}</h1><p>${esc(text)}</p></div>`);
}
