import { defaultComment, EXPIRED_COMMENT, type PurchaseState } from '../../domain/purchase-states.ts';
import { parseDecimalAmount } from '../../domain/money.ts';
import { formatMoney } from '../../i18n/format.ts';
import type { EnFr } from '../../i18n/lang.ts';
import { CANCELLED_COMMENT } from '../../use-cases/checkout/cancel-purchase.ts';

/**
 * A purchase's `comment` in the back office's language. The comment is stored once, in English,
 * because Merchant API v1 returns it as written (docs/api-conventions.md); the French back office
 * reads it back through the templates that write it (src/domain/pot.ts, installment-rules.ts,
 * leader-plan.ts, purchase-states.ts, the cancel and refund use cases). test/dashboard/french.test.ts
 * runs every template, so a new or changed sentence without its French fails there. A comment no
 * template matches (written by an older version) is shown as stored, marked `lang="en"` by the page.
 */
export function commentIn(lang: EnFr, comment: string): { text: string; translated: boolean } {
  if (lang === 'en') return { text: comment, translated: true };
  const exact = FIXED[comment];
  if (exact) return { text: exact, translated: true };
  for (const [pattern, french] of PATTERNS) {
    const m = pattern.exec(comment);
    if (m) return { text: french(...m.slice(1)), translated: true };
  }
  return { text: comment, translated: false };
}

const FIXED_FR: Record<PurchaseState, string> = {
  CREATED: 'En attente du paiement de l’organisateur.',
  ABORTED: 'Abandonné par le marchand.',
  LEADER_PROCESSED: 'Le paiement de l’organisateur est autorisé.',
  SUCCESSFUL: 'Le montant total est encaissé.',
  FAILED: 'Le paiement n’a pas pu aboutir.',
  CANCELLED: 'Annulé.',
  REFUNDED: 'Remboursé en entier.',
};

const FIXED: Record<string, string> = {
  ...Object.fromEntries((Object.keys(FIXED_FR) as PurchaseState[]).map((s) => [defaultComment(s), FIXED_FR[s]])),
  [EXPIRED_COMMENT]: 'Expiré sans paiement.',
  [CANCELLED_COMMENT]: 'Annulé par le marchand.',
  'The remaining installments were cancelled by a refund.': 'Les échéances restantes ont été annulées par un remboursement.',
  'The deferred payment is collected.': 'Le paiement différé est encaissé.',
};

/**
 * "40.00" and "EUR" → "40,00 €": the stored amounts are written the v1 way; the page writes them as
 * it writes every other amount (one that does not parse stays as it was stored).
 */
const money = (decimal: string, currency: string) => {
  const cents = parseDecimalAmount(decimal, currency);
  return cents === undefined ? `${decimal} ${currency}` : formatMoney(cents, currency, 'fr');
};
/** "1 ami sur 3 a payé", "2 amis sur 3 ont payé": in French the count of those who paid agrees. */
const paidOf = (paid: string, invited: string) => (Number(paid) <= 1 ? `${paid} ami sur ${invited} a payé` : `${paid} amis sur ${invited} ont payé`);

const PATTERNS: [RegExp, (...m: string[]) => string][] = [
  [/^(\d+) of (\d+) friends? paid, ([\d.]+) ([A-Z]{3}) left\.$/, (p, n, a, c) => `${paidOf(p!, n!)}, reste ${money(a!, c!)}.`],
  [/^The pot is complete: (\d+) of (\d+) friends? paid\.$/, (p, n) => `La cagnotte est complète : ${paidOf(p!, n!)}.`],
  [
    /^(\d+) of (\d+) friends? paid; the leader paid the remaining ([\d.]+) ([A-Z]{3}) at the deadline\.$/,
    (p, n, a, c) => `${paidOf(p!, n!)} ; l’organisateur a payé le reste, ${money(a!, c!)}, à l’échéance.`,
  ],
  [
    /^(\d+) of (\d+) friends? paid; charging the remaining ([\d.]+) ([A-Z]{3}) to the leader was refused\.$/,
    (p, n, a, c) => `${paidOf(p!, n!)} ; le débit du reste, ${money(a!, c!)}, à l’organisateur a été refusé.`,
  ],
  [/^All (\d+) installments are paid\.$/, (n) => `Les ${n} échéances sont payées.`],
  [/^(\d+) of (\d+) installments paid\.$/, (p, n) => (Number(p) <= 1 ? `${p} échéance sur ${n} payée.` : `${p} échéances sur ${n} payées.`)],
  [/^The deferred payment could not be collected after (\d+) attempts \((.*)\)\.$/s, (k, r) => `Le paiement différé n’a pas pu être encaissé après ${k} tentatives (${r}).`],
  [
    /^Installment (\d+) of (\d+) could not be collected after (\d+) attempts \((.*)\)\.$/s,
    (i, n, k, r) => `L’échéance ${i} sur ${n} n’a pas pu être encaissée après ${k} tentatives (${r}).`,
  ],
  [/^The leader's card was refused (\d+) times \((.*)\)\.$/s, (k, r) => `La carte de l’organisateur a été refusée ${k} fois (${r}).`],
];
