import type { AttemptOutcome, DeliveryStanding } from '../../delivery/delivery.ts';
import type { WebhookRule } from '../../delivery/endpoints.ts';
import type { RiskReasonCode } from '../../domain/eligibility.ts';
import type { EventType } from '../../domain/events.ts';
import type { V1State } from '../../domain/purchase-states.ts';
import type { Role } from '../../domain/roles.ts';
import type { RiskRuleName, RiskRuleRefusal } from '../../domain/risk-rules.ts';
import { Catalogue, perLanguage, type KeyOf, type Values } from '../../i18n/catalogue.ts';
import en from '../../i18n/catalogues/backoffice/en.json' with { type: 'json' };
import fr from '../../i18n/catalogues/backoffice/fr.json' with { type: 'json' };
import type { EnFr, Lang } from '../../i18n/lang.ts';
import type { PaymentPurpose } from '../../payments/payment-repository.ts';
import type { PledgeState } from '../../payments/pledge-repository.ts';
import type { RefundState } from '../../payments/refund-repository.ts';
import type { BankDetailsProblem } from '../../payouts/bank-details.ts';
import type { NotYetWhy } from '../../psp/catalogue.ts';
import type { DeclineReason, TransactionStatus } from '../../psp/connector.ts';
import type { PspEnvironment } from '../../psp/definition.ts';
import type { OfferRefusal } from '../../use-cases/merchant-setup/edit-offer.ts';
import type { ParameterRefusal } from '../../use-cases/merchant-setup/offer-parameters.ts';

/**
 * The words of the back office, from its catalogue (`src/i18n/catalogues/backoffice/<lang>.json`,
 * docs/architecture.md#where-words-live). The back office speaks English and French only (a
 * language comes to it when it is complete there too, issue 77): the catalogue has these two files,
 * and the catalogue test holds the area to them (`test/unit/i18n.test.ts`, TWO_LANGUAGE_AREAS).
 *
 * This is the pages' typed view of it: the messages that take no value as the catalogue nests
 * them (`Catalogue.fixed`), and those that take values as functions that give them, by name,
 * never joining pieces of a sentence; a refusal's words are a group keyed by its code.
 */
const WORDS = new Catalogue<KeyOf<typeof en>>('backoffice', { en, fr });

/** Why a risk rule's typed value is refused: the schema's refusals (src/domain/risk-rules.ts) and the form's own (not a number). */
export type RiskFormRefusal = RiskRuleRefusal | { code: 'not_amount' } | { code: 'not_whole' };

/** How a refused offer edit shows a bound of its field (an amount, a rate, hours) and an amount. */
type RefusalShow = { bound: (n: number) => string; money: (cents: number) => string };

function texts(lang: Lang) {
  type Key = KeyOf<typeof en>;
  const w = (key: Key, values?: Values) => WORDS.text(lang, key, values);
  /** A message of a group keyed by a code the type system knows and the catalogue test checks. */
  const coded = (group: string, code: string, values?: Values) => w(`${group}.${code}` as Key, values);
  const s = WORDS.fixed(lang) as typeof en;

  function parameterRefusal(r: ParameterRefusal, bound: (n: number) => string): string {
    switch (r.code) {
      case 'url': {
        const rule = r.rule;
        const known = ['too_long', 'not_https', 'has_credentials', 'internal_address', 'localhost'].includes(rule.code);
        return coded('offerParameters.refusal.url', known ? rule.code : 'other', { ...rule });
      }
      case 'one_line':
        return coded('offerParameters.refusal', r.code, { max: r.max });
      case 'not_choice':
        return coded('offerParameters.refusal', r.code, { choices: r.choices.join(', ') });
      case 'out_of_range':
        return coded('offerParameters.refusal', r.code, { min: bound(r.min), max: bound(r.max) });
      default:
        return coded('offerParameters.refusal', r.code);
    }
  }

  function offerRefusal(r: OfferRefusal, show: RefusalShow): string {
    switch (r.code) {
      case 'out_of_range':
        return w('offerRefusal.out_of_range', { min: show.bound(r.min), max: show.bound(r.max) });
      case 'credit_lender_shape':
        return w('offerRefusal.credit_lender_shape', { max: r.max });
      case 'min_above_max':
        return w('offerRefusal.min_above_max', { min: show.money(r.min), max: show.money(r.max) });
      case 'unsellable':
        return w('offerRefusal.unsellable', { amount: show.money(r.amountCents), why: coded('scheduleRefusal', r.schedule) });
      case 'psp_currency':
        return w('offerRefusal.psp_currency', { psp: r.psp, takes: r.takes.join(', '), currency: r.currency });
      case 'unpaid_purchases':
        return w('offerRefusal.unpaid_purchases', { count: r.count });
      case 'not_integer':
      case 'pot_deadline_shared_only':
      case 'credit_mentions_credit_only':
      case 'sandbox_in_production':
      case 'transfer_mode':
        return coded('offerRefusal', r.code);
      default:
        return parameterRefusal(r, show.bound);
    }
  }

  function riskRuleRefusal(r: RiskFormRefusal, show: { money: (minor: number) => string }): string {
    switch (r.code) {
      case 'out_of_range':
        return r.amount
          ? w('riskRuleRefusal.out_of_range_amount', { min: show.money(r.min), max: show.money(r.max) })
          : w('riskRuleRefusal.out_of_range', { min: r.min, max: r.max });
      case 'too_many':
        return w('riskRuleRefusal.too_many', { max: r.max });
      case 'bad_entry':
        return coded('riskRuleRefusal.bad_entry', r.expected, { line: r.index + 1, max: r.maxLength });
      case 'min_above_max':
        return w('riskRuleRefusal.min_above_max', { max: show.money(r.max) });
      case 'not_account_offer':
        return w('riskRuleRefusal.not_account_offer', { line: r.index + 1 });
      default:
        return coded('riskRuleRefusal', r.code);
    }
  }

  function notReachedWhy(why: NotYetWhy): string {
    switch (why.code) {
      case 'contract_gap':
        return w('notReachedWhy.contract_gap', { lacks: why.lacks.map((need) => coded('notReachedWhy.lacks', need)).join(w('notReachedWhy.lacksSeparator')) });
      case 'acquired':
        return why.closed ? w('notReachedWhy.acquired_closed', { by: why.by, on: why.on, closed: why.closed }) : w('notReachedWhy.acquired', { by: why.by, on: why.on });
      default:
        return coded('notReachedWhy', why.code, { ...why });
    }
  }

  /** A payout file's transfers by state, each count its own words, the empty ones left out. */
  function operatorStates(waiting: number, sent: number, returned: number): string {
    const parts = [
      waiting ? w('operator.states.waiting', { n: waiting }) : '',
      sent ? w('operator.states.sent', { n: sent }) : '',
      returned ? w('operator.states.returned', { n: returned }) : '',
    ].filter(Boolean);
    return parts.length ? parts.join(w('operator.states.separator')) : w('operator.states.none');
  }

  return {
    ...s,
    chartOf: (currency: string) => w('chartOf', { currency }),
    adminOnlyFor: (role: string) => w('adminOnlyFor', { role }),
    operatorOnly: (role: string) => w('operatorOnly', { role }),
    throttled: (seconds: number) => w('throttled', { s: seconds }),
    passwordProblem: s.passwordProblem as Record<'too_short' | 'too_long' | 'is_email', string>,
    stateNames: s.stateNames as Record<V1State, string>,
    deliveryStandingNames: s.deliveryStandingNames as Record<DeliveryStanding, string>,
    attemptOutcomeNames: s.attemptOutcomeNames as Record<AttemptOutcome, string>,
    eventNames: s.eventNames as Record<EventType, string>,
    environmentNames: s.environmentNames as Record<PspEnvironment, string>,
    // The home page
    homePeriod: (from: string, to: string, zone: string) => w('homePeriod', { from, to, zone }),
    statCollected: (currency: string) => w('statCollected', { currency }),
    statRefundedAmount: (currency: string) => w('statRefundedAmount', { currency }),
    lastFailure: (at: string, what: string, answer: string) => w('lastFailure', { at, what, answer }),
    // The Developers page and a delivery's page
    rotateKeyLabel: (key: string) => w('rotateKeyLabel', { key }),
    revokeKeyLabel: (key: string) => w('revokeKeyLabel', { key }),
    keyRotated: (old: string) => w('keyRotated', { old }),
    keyRevoked: (key: string) => w('keyRevoked', { key }),
    confirmRotate: (key: string) => w('confirmRotate', { key }),
    confirmRevoke: (key: string) => w('confirmRevoke', { key }),
    webhookRefusal: (r: WebhookRule) => coded('webhookRefusal', r.code, { ...r }),
    webhookPreviousSecret: (until: string) => w('webhookPreviousSecret', { until }),
    webhookDisabled: (reason: string) => w('webhookDisabled', { reason }),
    replayLabel: (id: string) => w('replayLabel', { id }),
    testEventSent: (trigger: string, status: number, ms: number) => w('testEventSent', { trigger, status: String(status), ms }),
    testEventFailed: (trigger: string, answer: string) => w('testEventFailed', { trigger, answer }),
    disputes: { ...s.disputes, pspRefused: (message: string) => w('disputes.pspRefused', { message }) },
    inbox: { ...s.inbox, intro: (shown: number) => w('inbox.intro', { shown }), to: (recipient: string) => w('inbox.to', { recipient }) },
    // The Team page, the invitation page and e-mail
    roleNames: s.roleNames as Record<Role, string>,
    roleOf: (email: string) => w('roleOf', { email }),
    removeMember: (email: string) => w('removeMember', { email }),
    revokeInvitation: (email: string) => w('revokeInvitation', { email }),
    invitationSent: (email: string) => w('invitationSent', { email }),
    invitationNotSent: (email: string) => w('invitationNotSent', { email }),
    invitationProblem: s.invitationProblem as Record<'invalid' | 'member' | 'taken', string>,
    joinTitle: (account: string) => w('joinTitle', { account }),
    joinIntro: (who: string, role: string) => w('joinIntro', { who, role }),
    inviteSubject: (account: string) => w('inviteSubject', { account }),
    inviteBody: (who: string, account: string, role: string, url: string, until: string) => w('inviteBody', { who, account, role, url, until }),
    // The offers pages
    kindInstallments: (n: number) => w('kindInstallments', { n }),
    kindDeferred: (days: number) => w('kindDeferred', { days }),
    kindDownPayment: (percent: number, days: number) => w('kindDownPayment', { percent, days }),
    feesOf: (percent: string, fixed: string) => w('feesOf', { percent, fixed }),
    hours: (n: number) => w('hours', { n }),
    commissionOf: (percent: string, fixed: string) => w('commissionOf', { percent, fixed }),
    fixedFeeField: (currency: string) => w('fixedFeeField', { currency }),
    minAmountField: (currency: string) => w('minAmountField', { currency }),
    maxAmountField: (currency: string) => w('maxAmountField', { currency }),
    offerRefusal,
    /** An offer's merchant parameters (docs/back-office.md#merchant-parameters-of-the-original-interface): the Offers page's section, and why a value is refused. */
    offerParameters: {
      ...s.offerParameters,
      use3dsNames: s.offerParameters.use3dsNames as Record<'auto' | 'always' | 'never', string>,
      fundingCap: (currency: string) => w('offerParameters.fundingCap', { currency }),
      refusal: parameterRefusal,
    },
    // The Settings page
    timeZoneNow: (now: string) => w('timeZoneNow', { now }),
    badTimeZone: (typed: string) => w('badTimeZone', { typed }),
    countryHint: (fallback: string) => w('countryHint', { fallback }),
    badCountry: (typed: string) => w('badCountry', { typed }),
    payouts: {
      ...s.payouts,
      intro: (zone: string) => w('payouts.intro', { zone }),
      next: s.payouts.next as Record<string, string>,
      /** A refused field of the bank details form, named by its label (the rule comes as data: the API's message stays English). */
      problem: (p: BankDetailsProblem) => coded('payouts.problem', p.rule, { ...p }),
      heldUntil: (when: string) => w('payouts.heldUntil', { when }),
      statusNames: s.payouts.statusNames as Record<string, string>,
      newest: (n: number) => w('payouts.newest', { n }),
      payoutTitle: (id: string) => w('payouts.payoutTitle', { id }),
      linesTooMany: (n: number) => w('payouts.linesTooMany', { n }),
      events: s.payouts.events as Record<string, string>,
    },
    operator: {
      ...s.operator,
      states: operatorStates,
      downloadLabel: (messageId: string) => w('operator.downloadLabel', { messageId }),
      markSentLabel: (messageId: string) => w('operator.markSentLabel', { messageId }),
      fileMade: (messageId: string, count: number) => w('operator.fileMade', { messageId, count }),
      marked: (messageId: string, count: number) => w('operator.marked', { messageId, count }),
      markRefused: (count: number) => w('operator.markRefused', { count }),
      newest: (n: number) => w('operator.newest', { n }),
    },
    // The PSP accounts pages
    deletePspAccount: (label: string) => w('deletePspAccount', { label }),
    confirmDeletePspAccount: (label: string, psp: string) => w('confirmDeletePspAccount', { label, psp }),
    reaches: (names: string) => w('reaches', { names }),
    notReachedWhy,
    addPspAccountOf: (psp: string) => w('addPspAccountOf', { psp }),
    pspAccountInUse: (offers: number, payments: number) => w('pspAccountInUse', { offers, payments }),
    pspRejected: (message: string) => w('pspRejected', { message }),
    credentialLabels: s.credentialLabels as Record<string, string>,
    expectedFormat: (format: string) => w('expectedFormat', { format }),
    badFormat: (format: string) => w('badFormat', { format }),
    fieldProblem: (field: string, message: string) => w('fieldProblem', { field, message }),
    pspRequirementsHeading: (psp: string) => w('pspRequirementsHeading', { psp }),
    /** What a PSP account needs first, by connector: its lines in their order (keyed 1, 2, 3… in the catalogue). */
    pspRequirements: Object.fromEntries(Object.entries(s.pspRequirements).map(([psp, lines]) => [psp, Object.values(lines)])) as Record<string, string[]>,
    webhookUrlOfPsp: (psp: string) => w('webhookUrlOfPsp', { psp }),
    webhookUrlOfPspHint: (psp: string) => w('webhookUrlOfPspHint', { psp }),
    missingWebhookSecret: (field: string, psp: string) => w('missingWebhookSecret', { field, psp }),
    credentialUnusable: (field: string) => w('credentialUnusable', { field }),
    // A purchase's page
    attemptLine: (what: string, n: number, answer: string, outcome: string) => w('attemptLine', { what, n, answer, outcome }),
    refundHint: (left: string) => w('refundHint', { left }),
    confirmRefund: (amount: string, email: string) => w('confirmRefund', { amount, email }),
    confirmRefundAll: (email: string) => w('confirmRefundAll', { email }),
    refundLeader: (email: string) => w('refundLeader', { email }),
    refundPledger: (who: string) => w('refundPledger', { who }),
    refundToCard: (amount: string) => w('refundToCard', { amount }),
    refundUncollected: (amount: string) => w('refundUncollected', { amount }),
    confirmCancel: (email: string) => w('confirmCancel', { email }),
    purposeNames: s.purposeNames as Record<PaymentPurpose, string>,
    paymentStatusNames: s.paymentStatusNames as Record<'pending' | TransactionStatus, string>,
    /** A declined payment's status with why, from the refusal code the payment recorded: what support can tell the shopper. */
    declinedBecause: (reason: string) => w('declinedBecause', { reason }),
    declineReasonNames: s.declineReasonNames as Record<DeclineReason, string>,
    /** A friend's share: whose (name, else e-mail, else phone number). */
    friendShareOf: (who: string) => w('friendShareOf', { who }),
    pledgeStateNames: s.pledgeStateNames as Record<PledgeState, string>,
    installmentStateNames: s.installmentStateNames as Record<'scheduled' | 'paid' | 'failed' | 'cancelled', string>,
    refundStateNames: s.refundStateNames as Record<RefundState, string>,
    riskDecision: {
      ...s.riskDecision,
      line: (who: string, outcome: string) => w('riskDecision.line', { who, outcome }),
      score: (value: number) => w('riskDecision.score', { value }),
      latency: (ms: number) => w('riskDecision.latency', { ms }),
      funding: s.riskDecision.funding as Record<string, string>,
      hook: (outcome: string) => w('riskDecision.hook', { outcome }),
      hookDefault: (outcome: string, error: string) => w('riskDecision.hookDefault', { outcome, error }),
      hookOutcomes: s.riskDecision.hookOutcomes as Record<string, string>,
      reasons: s.riskDecision.reasons as Record<RiskReasonCode, string>,
    },
    // The purchases list and its filter
    partlyRefundedOf: (refunded: string) => w('partlyRefundedOf', { refunded }),
    badDate: (field: string) => w('badDate', { field }),
    dateOutOfRange: (field: string) => w('dateOutOfRange', { field }),
    refundAtMost: (left: string) => w('refundAtMost', { left }),
    chargeDisputed: (left: string) => w('chargeDisputed', { left }),
    cannotCancelState: (state: string) => w('cannotCancelState', { state }),
    recon: {
      ...s.recon,
      ran: (runs: number) => w('recon.ran', { runs }),
      runStates: s.recon.runStates as Record<string, string>,
      kinds: s.recon.kinds as Record<string, string>,
      operations: s.recon.operations as Record<string, string>,
    },
    report: {
      ...s.report,
      intro: (zone: string) => w('report.intro', { zone }),
      chartOf: (currency: string) => w('report.chartOf', { currency }),
      chartTitle: (currency: string, from: string, to: string) => w('report.chartTitle', { currency, from, to }),
      tooMany: (n: number) => w('report.tooMany', { n }),
    },
    // The risk rules pages
    riskRuleRefusal,
    riskForm: {
      ...s.riskForm,
      follow: (now: string) => w('riskForm.follow', { now }),
      unset: (now: string) => w('riskForm.unset', { now }),
      builtIn: (value: string) => w('riskForm.builtIn', { value }),
      valueIn: (unit: string) => w('riskForm.valueIn', { unit }),
      named: (rule: string, why: string) => w('riskForm.named', { rule, why }),
      notSaved: (error: string) => w('riskForm.notSaved', { error }),
    },
    riskRules: { ...s.riskRules, names: s.riskRules.names as Record<RiskRuleName, string> },
    // A line of the audit log
    staffAction: (who: string, action: string) => w('staffAction', { who, action }),
    auditActions: s.auditActions as Record<string, string>,
    /** Who did it, for actors that are not a person's e-mail (the audit log keeps them as `api_key:key_…`, `cli`). */
    actors: { ...s.actors, apiKey: (ending: string) => w('actors.apiKey', { ending }) },
  };
}

export type DashboardTexts = ReturnType<typeof texts>;

/** The back office's words by language (English for a language it does not speak), each built on its first page. */
export const DASHBOARD_TEXT: Readonly<Record<EnFr, DashboardTexts>> = perLanguage(texts);
