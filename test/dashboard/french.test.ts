import { describe, expect, it } from 'vitest';
import { commentIn } from '../../src/http/backoffice/purchase-comment.ts';
import { DASHBOARD_TEXT } from '../../src/http/backoffice/texts.ts';
import { CREDENTIAL_FORMAT_FR, CREDENTIAL_HELP_FR } from '../../src/http/backoffice/credential-help.ts';
import { EVENT } from '../../src/domain/events.ts';
import { RISK_REASON_CODES } from '../../src/domain/eligibility.ts';
import { installmentFailedComment, installmentPaidComment } from '../../src/domain/installment-rules.ts';
import { LEADER_PURPOSES, leaderRefusedComment } from '../../src/domain/leader-plan.ts';
import { potComment, potCompleteComment, potDeadlineComment } from '../../src/domain/pot.ts';
import { defaultComment, EXPIRED_COMMENT, MOVES, V1_STATE, type PurchaseState } from '../../src/domain/purchase-states.ts';
import { CANCELLED_COMMENT } from '../../src/use-cases/checkout/cancel-purchase.ts';
import { CONNECTOR_DEFINITIONS } from '../../src/psp/definitions.ts';
import { DEFAULT_PSP } from '../../src/psp/registry.ts';
import { checkBankDetails } from '../../src/payouts/bank-details.ts';

/**
 * The French back office is French throughout: every text has a French version
 * that is not the English one, and every value the pages show (states, payment purposes and
 * statuses, timeline events, the purchase's comment) has a French label.
 */
const en = DASHBOARD_TEXT.en as unknown as Record<string, unknown>;
const fr = DASHBOARD_TEXT.fr as unknown as Record<string, unknown>;

/** Texts that are the same word in both languages (checked by hand, not forgotten). */
const SAME_IN_BOTH = new Set([
  'roleNames.support',
  // The channels' names are the same words in French.
  'inbox.email',
  'inbox.sms',
  'action',
  'actions',
  'feesOf',
  'hours',
  'apiSecret',
  'webhook',
  'email',
  'client',
  'environmentNames.test',
  'notification',
  'net',
  'offerParameters.use3ds',
  // A bank account's identifiers are named by their acronyms in both.
  'payouts.iban',
  'payouts.bic',
  // The daily report's column (7271fa3b): the operator's commission is a "commission" in French too.
  'report.commission',
  // The delivery log's English words are the codes docs/webhooks.md documents.
]);
/** English labels that are the code they name (the delivery log's words of docs/webhooks.md, a card's funding); French ones never are. */
const CODES_IN_ENGLISH = new Set(['attemptOutcomeNames', 'environmentNames', 'riskDecision.funding']);

const SAMPLE = ['A', 'B', 'C', 'D', 'E'];
const SHOW = { bound: String, money: (cents: number) => `${cents}c` };
/** Texts that word a refusal given as data: every kind of refusal, each worded in both languages. */
const REFUSALS: Record<string, unknown[][]> = {
  offerRefusal: [
    { code: 'not_integer' },
    { code: 'out_of_range', min: 1, max: 2 },
    { code: 'pot_deadline_shared_only' },
    { code: 'credit_mentions_credit_only' },
    { code: 'credit_lender_shape', max: 300 },
    { code: 'min_above_max', min: 5, max: 1 },
    { code: 'unsellable', amountCents: 100, schedule: 'usury_ceiling_exceeded' },
    { code: 'sandbox_in_production' },
    { code: 'psp_currency', psp: 'Midtrans', takes: ['IDR'], currency: 'EUR' },
    { code: 'unpaid_purchases', count: 2 },
    ...(['too_long', 'not_absolute', 'not_http', 'has_credentials', 'not_https', 'internal_address', 'localhost'] as const).map((code) => ({
      code: 'url',
      rule: { code, max: 2048, host: '10.0.0.1' },
    })),
    { code: 'not_country' },
    { code: 'one_line', max: 100 },
    { code: 'not_choice', choices: ['always', 'never', 'auto'] },
    { code: 'not_boolean' },
    { code: 'shared_only' },
    { code: 'credit_only' },
  ].map((r) => [r, SHOW]),
  riskRuleRefusal: [
    { code: 'not_object' },
    { code: 'unknown_rule' },
    { code: 'out_of_range', min: 0, max: 100, amount: false },
    { code: 'out_of_range', min: 0, max: 100, amount: true },
    { code: 'not_boolean' },
    { code: 'not_list' },
    { code: 'too_many', max: 1000 },
    ...(['text', 'country', 'email', 'ip_range'] as const).map((expected) => ({ code: 'bad_entry', index: 1, expected, maxLength: 254 })),
    { code: 'min_above_max', max: 500 },
    { code: 'not_amount' },
    { code: 'not_whole' },
  ].map((r) => [r, SHOW]),
  notReachedWhy: [
    { code: 'no_connector' },
    { code: 'no_public_api' },
    { code: 'reference_incomplete' },
    { code: 'contract_gap', lacks: ['transaction_read', 'idempotency'] },
    { code: 'acquired', by: 'Shift4', on: '2023-10-26' },
    { code: 'acquired', by: 'ING', on: '2018', closed: '2022' },
    { code: 'hyperswitch_unverified', hyperswitchConnector: 'PayPal' },
    { code: 'other_api', connector: 'ogone', hyperswitchConnector: 'Worldline' },
    { code: 'not_in_build', connector: 'adyen' },
  ].map((r) => [r]),
  webhookRefusal: [
    { code: 'too_long', max: 2048 },
    { code: 'not_absolute' },
    { code: 'not_http' },
    { code: 'has_credentials' },
    { code: 'not_https' },
    { code: 'internal_address', host: '10.0.0.1' },
    { code: 'localhost' },
    { code: 'unknown_event', name: 'x' },
    { code: 'no_event' },
  ].map((r) => [r]),
};
const shown = (v: unknown) => (typeof v === 'function' ? String((v as (...a: string[]) => unknown)(...SAMPLE)) : v);

describe('the French back office texts', () => {
  it('has a French text, different from the English one, for every text of the back office', () => {
    const untranslated: string[] = [];
    for (const [key, value] of Object.entries(en)) {
      const refusals = REFUSALS[key];
      if (refusals) {
        const word = (texts: Record<string, unknown>, args: unknown[]) => (texts[key] as (...a: unknown[]) => string)(...args);
        for (const args of refusals) if (!word(fr, args) || word(fr, args) === word(en, args)) untranslated.push(`${key}(${JSON.stringify(args[0])})`);
        continue;
      }
      if (typeof value === 'string' || typeof value === 'function') {
        if (shown(fr[key]) === shown(value) && !SAME_IN_BOTH.has(key)) untranslated.push(key);
        continue;
      }
      for (const [sub, label] of Object.entries(value as Record<string, unknown>)) {
        const frLabel = (fr[key] as Record<string, unknown> | undefined)?.[sub];
        if (frLabel === undefined || (frLabel === label && !SAME_IN_BOTH.has(`${key}.${sub}`))) untranslated.push(`${key}.${sub}`);
      }
    }
    expect(untranslated).toEqual([]);
  });

  it('labels every state, payment purpose, status and event type in words, never by its code', () => {
    const t = DASHBOARD_TEXT.fr;
    const maps: [string, Record<string, string>, readonly string[]][] = [
      ['stateNames', t.stateNames, [...new Set(Object.values(V1_STATE))]],
      ['purposeNames', t.purposeNames, [...LEADER_PURPOSES, 'pledge', 'rest', 'installment']],
      ['paymentStatusNames', t.paymentStatusNames, ['pending', 'requires_action', 'authorized', 'captured', 'voided', 'refunded', 'declined', 'expired']],
      ['pledgeStateNames', t.pledgeStateNames, ['draft', 'invited', 'paying', 'paid', 'closed']],
      ['installmentStateNames', t.installmentStateNames, ['scheduled', 'paid', 'failed', 'cancelled']],
      ['refundStateNames', t.refundStateNames, ['pending', 'succeeded', 'failed']],
      ['deliveryStandingNames', t.deliveryStandingNames, ['delivered', 'failing', 'pending', 'cancelled']],
      ['attemptOutcomeNames', t.attemptOutcomeNames, ['succeeded', 'retry_scheduled', 'gave_up', 'endpoint_gone', 'interrupted']],
      ['eventNames', t.eventNames, [...Object.values(EVENT), ...Object.values(MOVES).map((m) => m.event)]],
      // A risk decision on the purchase's timeline: its reasons and the card's funding in words.
      ['riskDecision.reasons', t.riskDecision.reasons, RISK_REASON_CODES],
      ['riskDecision.funding', t.riskDecision.funding, ['credit', 'debit', 'prepaid', 'unknown']],
    ];
    for (const [name, labels, values] of maps) {
      for (const v of values) {
        expect(labels[v], `${name}.${v}`).toBeTruthy();
        expect(labels[v]!.toLowerCase(), `${name}.${v}`).not.toBe(v.toLowerCase());
        expect(labels[v], `${name}.${v}`).not.toMatch(/_|\./);
      }
      if (!CODES_IN_ENGLISH.has(name))
        for (const v of values) {
          const english = name.split('.').reduce<Record<string, unknown>>((o, k) => o[k] as Record<string, unknown>, DASHBOARD_TEXT.en as unknown as Record<string, unknown>);
          expect(english[v], `en ${name}.${v}`).not.toBe(v);
        }
    }
  });

  it('reads every comment a purchase can carry in French', () => {
    const comments = [
      ...(['CREATED', 'ABORTED', 'LEADER_PROCESSED', 'SUCCESSFUL', 'FAILED', 'CANCELLED', 'REFUNDED'] as PurchaseState[]).map(defaultComment),
      EXPIRED_COMMENT,
      CANCELLED_COMMENT,
      'The remaining installments were cancelled by a refund.',
      potComment(3, 1, 4000, 'EUR'),
      potComment(1, 0, 4000, 'EUR'),
      potCompleteComment(2, 2),
      potDeadlineComment(3, 1, 5000, 'EUR', true),
      potDeadlineComment(3, 2, 5000, 'EUR', false),
      installmentPaidComment(1, 3),
      installmentPaidComment(3, 3),
      installmentPaidComment(1, 1),
      installmentFailedComment(1, 3, 4, 'insufficient_funds'),
      installmentFailedComment(0, 1, 4, 'insufficient_funds'),
      leaderRefusedComment(3, 'do_not_honor'),
    ];
    for (const c of comments) {
      const french = commentIn('fr', c);
      expect(french.translated, c).toBe(true);
      expect(french.text, c).not.toBe(c);
      expect(french.text, c).not.toMatch(/\b(the|of|paid|friends?|leader|installments?|left|refused)\b/);
    }
    expect(commentIn('fr', potComment(3, 1, 4000, 'EUR')).text).toBe('1 ami sur 3 a payé, reste 40,00\u00a0€.');
    // A sentence no template wrote (an older version's) is kept as stored, for the page to mark as English.
    expect(commentIn('fr', 'Something else.')).toEqual({ text: 'Something else.', translated: false });
  });

  it('names every credential field of every connector in words, says its format, where to find it and what the PSP account needs, in both languages', () => {
    for (const def of CONNECTOR_DEFINITIONS.filter((d) => d.name !== DEFAULT_PSP)) {
      for (const lang of ['en', 'fr'] as const) expect(DASHBOARD_TEXT[lang].pspRequirements[def.name]?.length, `${lang} ${def.name}`).toBeGreaterThan(0);
      for (const f of def.credentialFields) {
        for (const lang of ['en', 'fr'] as const) {
          const label = DASHBOARD_TEXT[lang].credentialLabels[f.name];
          expect(label, `${lang} ${def.name}.${f.name}`).toBeTruthy();
          expect(label, `${lang} ${def.name}.${f.name}`).not.toContain('_');
        }
        if (f.format) expect(CREDENTIAL_FORMAT_FR[`${def.name}.${f.name}`], `fr format of ${def.name}.${f.name}`).toBeTruthy();
        const help = CREDENTIAL_HELP_FR[`${def.name}.${f.name}`];
        expect(help, `fr help of ${def.name}.${f.name}`).toBeTruthy();
        expect(help, `fr help of ${def.name}.${f.name}`).not.toBe(f.description);
        expect(help, `fr help of ${def.name}.${f.name}`).not.toContain("'");
      }
    }
  });

  it('words every refused bank details field of the Payouts page in both languages, by its label, never as the API’s English', () => {
    const good = { holder_name: 'Boutique Exemple', iban: 'FR7630006000011234567890189', bic: 'AGRIFRPP' };
    const typed = [
      { ...good, holder_name: '' },
      { ...good, holder_name: 'x'.repeat(71) },
      { ...good, holder_name: 'a\u0000b' },
      { ...good, holder_name: '北京商店' },
      { ...good, iban: '' },
      { ...good, iban: 'XX7630006000011234567890189' },
      { ...good, iban: 'FR76300060000112345678901' },
      { ...good, iban: 'FR7630006000011234567890188' },
      { ...good, iban: 'BR1800360305000010009795493C1', bic: 'BOFABR2X' },
      { ...good, bic: '' },
      { ...good, bic: 'AGRI' },
      { ...good, bic: 'COBADEFFXXX' },
    ];
    const rules = new Set<string>();
    for (const input of typed) {
      const checked = checkBankDetails(input);
      if (checked.ok) throw new Error(`accepted: ${JSON.stringify(input)}`);
      rules.add(checked.problem.rule);
      const label = { holder_name: ['Account holder', 'Titulaire du compte'], iban: ['IBAN', 'IBAN'], bic: ['BIC', 'BIC'] }[checked.field];
      const [en, fr] = [DASHBOARD_TEXT.en.payouts.problem(checked.problem), DASHBOARD_TEXT.fr.payouts.problem(checked.problem)];
      expect(en, checked.problem.rule).toMatch(new RegExp(`^${label[0]}: `));
      expect(fr, checked.problem.rule).toMatch(new RegExp(`^${label[1]}\u00a0: `));
      expect(fr, checked.problem.rule).not.toBe(en);
      expect(fr, checked.problem.rule).not.toContain('field ');
    }
    expect(rules.size).toBe(typed.length);
  });
});
