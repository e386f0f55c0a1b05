import type { RiskRuleName, RiskRuleRefusal } from '../../../domain/risk-rules.ts';

/** Why a risk rule's typed value is refused: the schema's refusals (src/domain/risk-rules.ts) and the form's own (not a number). */
export type RiskFormRefusal = RiskRuleRefusal | { code: 'not_amount' } | { code: 'not_whole' };
/** How a refusal shows a bound: `money` in the form's unit (the offer's currency, or minor units). */
type RiskShow = { money: (minor: number) => string };

const RISK_ENTRY_EN = {
  text: (max: number) => `must not be empty and have at most ${max} characters`,
  country: () => 'must be a two-letter country code (ISO 3166, like FR)',
  email: () => 'must be an e-mail address',
  ip_range: () => 'must be an IP address or a CIDR range (203.0.113.0/24)',
  offer: () => 'must be an offer id (mer_…)',
};
const RISK_ENTRY_FR: typeof RISK_ENTRY_EN = {
  text: (max) => `ne doit pas être vide et doit avoir au plus ${max} caractères`,
  country: () => 'doit être un code pays à deux lettres (ISO 3166, comme FR)',
  email: () => 'doit être une adresse e-mail',
  ip_range: () => 'doit être une adresse IP ou une plage CIDR (203.0.113.0/24)',
  offer: () => 'doit être un identifiant d’offre (mer_…)',
};

function riskRuleRefusalEn(r: RiskFormRefusal, show: RiskShow): string {
  switch (r.code) {
    case 'not_object':
      return 'is not a set of rules';
    case 'unknown_rule':
      return 'is not a rule';
    case 'out_of_range':
      return r.amount ? `must be between ${show.money(r.min)} and ${show.money(r.max)}` : `must be a whole number between ${r.min} and ${r.max}`;
    case 'not_boolean':
      return 'must be yes or no';
    case 'not_list':
      return 'must be a list, one entry per line';
    case 'too_many':
      return `must have at most ${r.max} lines`;
    case 'bad_entry':
      return `line ${r.index + 1} ${RISK_ENTRY_EN[r.expected](r.maxLength)}`;
    case 'min_above_max':
      return `must not be above the largest amount (${show.money(r.max)})`;
    case 'not_account_offer':
      return `line ${r.index + 1} must be another offer of this account`;
    case 'not_amount':
      return 'must be an amount, like 12.50';
    case 'not_whole':
      return 'must be a whole number';
  }
}

function riskRuleRefusalFr(r: RiskFormRefusal, show: RiskShow): string {
  switch (r.code) {
    case 'not_object':
      return 'n’est pas un ensemble de règles';
    case 'unknown_rule':
      return 'n’est pas une règle';
    case 'out_of_range':
      return r.amount ? `doit être entre ${show.money(r.min)} et ${show.money(r.max)}` : `doit être un nombre entier entre ${r.min} et ${r.max}`;
    case 'not_boolean':
      return 'doit être oui ou non';
    case 'not_list':
      return 'doit être une liste, une entrée par ligne';
    case 'too_many':
      return `doit avoir au plus ${r.max} lignes`;
    case 'bad_entry':
      return `la ligne ${r.index + 1} ${RISK_ENTRY_FR[r.expected](r.maxLength)}`;
    case 'min_above_max':
      return `ne doit pas dépasser le montant maximal (${show.money(r.max)})`;
    case 'not_account_offer':
      return `la ligne ${r.index + 1} doit être une autre offre de ce compte`;
    case 'not_amount':
      return 'doit être un montant, comme 12,50';
    case 'not_whole':
      return 'doit être un nombre entier';
  }
}

/** The words of the risk rules pages (`risk-rules-page.ts`) and an offer’s and the settings’ links to them, with the words of a refused rule, in English and French (`../texts.ts` joins them into DASHBOARD_TEXT). */
export const RISK_RULES_TEXT_EN = {
  riskRuleRefusal: riskRuleRefusalEn,
  riskForm: {
    offerTitle: 'Change this offer’s rules',
    offerHint:
      'Each rule follows the account’s default unless it is switched off on this offer or given its own value. Lists: one entry per line. A change applies to the next eligibility check (other servers within 5 seconds) and is recorded in the audit log.',
    accountTitle: 'Risk rules',
    accountHint:
      'The account’s defaults: every offer follows them, rule by rule, unless it sets its own on its page. A rule not set here takes Chipin’s default where there is one, else does not apply. Lists: one entry per line. A change applies to the next eligibility check (other servers within 5 seconds) and is recorded in the audit log.',
    accountLink: 'The account’s defaults',
    settingsLink: 'Risk rules: the account’s defaults for every offer',
    follow: (now: string) => `Follow the account (now: ${now})`,
    off: 'Switch off on this offer',
    set: 'Set a value',
    unset: (now: string) => `Not set (${now})`,
    notInEffect: 'not in effect',
    builtIn: (value: string) => `Chipin’s default: ${value}`,
    value: 'Value',
    valueIn: (unit: string) => `Value (${unit})`,
    minorUnits: 'in minor units, like cents',
    listHints: {
      countries: 'One two-letter country code per line (FR, BE…).',
      emails: 'One e-mail address per line.',
      cards: 'One card fingerprint per line.',
      ip_ranges: 'One IP address or CIDR range per line (203.0.113.0/24).',
      offers: 'One offer id (mer_…) per line, in the order they are proposed.',
    },
    named: (rule: string, why: string) => `${rule}: ${why}`,
    notSaved: (error: string) => `Nothing was saved. ${error}.`,
    saveOffer: 'Save this offer’s rules',
    saveAccount: 'Save the account’s rules',
    offerSaved: 'This offer’s risk rules were saved.',
    accountSaved: 'The account’s risk rules were saved.',
  },
  riskRules: {
    title: 'Risk rules',
    hint: 'The rules in effect on this offer, and where each comes from.',
    none: 'No risk rule is in effect on this offer.',
    rule: 'Rule',
    value: 'Value',
    source: 'Set by',
    sources: { built_in: 'Chipin (built-in)', account: 'the account', offer: 'this offer' },
    yes: 'yes',
    no: 'no',
    names: {
      min_amount_cents: 'Smallest amount',
      max_amount_cents: 'Largest amount',
      max_outstanding_cents: 'Most credit owed by one shopper',
      max_plans_per_hour: 'Plans per shopper in an hour',
      max_plans_per_day: 'Plans per shopper in a day',
      refuse_prepaid_cards: 'Prepaid cards refused for credit',
      card_countries: 'Card issuing countries allowed',
      card_must_outlast_plan: 'Card must outlast the plan',
      blocked_emails: 'Blocked e-mails',
      blocked_cards: 'Blocked cards',
      blocked_ip_ranges: 'Blocked IP ranges',
      allowed_emails: 'Trusted e-mails',
      allowed_cards: 'Trusted cards',
      allowed_ip_ranges: 'Trusted IP ranges',
      min_score: 'Lowest score accepted',
      fallback_offers: 'Offers proposed after a refusal',
    } as Record<RiskRuleName, string>,
  },
};

export const RISK_RULES_TEXT_FR: typeof RISK_RULES_TEXT_EN = {
  riskRuleRefusal: riskRuleRefusalFr,
  riskForm: {
    offerTitle: 'Modifier les règles de cette offre',
    offerHint:
      'Chaque règle suit celle du compte, sauf si elle est désactivée sur cette offre ou reçoit sa propre valeur. Listes\u00a0: une entrée par ligne. Une modification s’applique à la prochaine vérification d’éligibilité (sur les autres serveurs sous 5 secondes) et est inscrite au journal d’audit.',
    accountTitle: 'Règles de risque',
    accountHint:
      'Les valeurs par défaut du compte\u00a0: chaque offre les suit, règle par règle, sauf si elle fixe les siennes sur sa page. Une règle non fixée ici prend la valeur par défaut de Chipin s’il y en a une, sinon ne s’applique pas. Listes\u00a0: une entrée par ligne. Une modification s’applique à la prochaine vérification d’éligibilité (sur les autres serveurs sous 5 secondes) et est inscrite au journal d’audit.',
    accountLink: 'Les valeurs par défaut du compte',
    settingsLink: 'Règles de risque\u00a0: les valeurs par défaut du compte pour toutes les offres',
    follow: (now: string) => `Suivre le compte (actuellement\u00a0: ${now})`,
    off: 'Désactiver sur cette offre',
    set: 'Fixer une valeur',
    unset: (now: string) => `Non fixée (${now})`,
    notInEffect: 'pas en vigueur',
    builtIn: (value: string) => `valeur par défaut de Chipin\u00a0: ${value}`,
    value: 'Valeur',
    valueIn: (unit: string) => `Valeur (${unit})`,
    minorUnits: 'en unités mineures, comme les centimes',
    listHints: {
      countries: 'Un code pays à deux lettres par ligne (FR, BE…).',
      emails: 'Une adresse e-mail par ligne.',
      cards: 'Un identifiant de carte par ligne.',
      ip_ranges: 'Une adresse IP ou une plage CIDR par ligne (203.0.113.0/24).',
      offers: 'Un identifiant d’offre (mer_…) par ligne, dans l’ordre où elles sont proposées.',
    },
    named: (rule: string, why: string) => `${rule}\u00a0: ${why}`,
    notSaved: (error: string) => `Rien n’a été enregistré. ${error}.`,
    saveOffer: 'Enregistrer les règles de cette offre',
    saveAccount: 'Enregistrer les règles du compte',
    offerSaved: 'Les règles de risque de cette offre ont été enregistrées.',
    accountSaved: 'Les règles de risque du compte ont été enregistrées.',
  },
  riskRules: {
    title: 'Règles de risque',
    hint: 'Les règles en vigueur sur cette offre, et d’où vient chacune.',
    none: 'Aucune règle de risque n’est en vigueur sur cette offre.',
    rule: 'Règle',
    value: 'Valeur',
    source: 'Fixée par',
    sources: { built_in: 'Chipin (par défaut)', account: 'le compte', offer: 'cette offre' },
    yes: 'oui',
    no: 'non',
    names: {
      min_amount_cents: 'Montant minimal',
      max_amount_cents: 'Montant maximal',
      max_outstanding_cents: 'Encours maximal d’un client',
      max_plans_per_hour: 'Plans par client en une heure',
      max_plans_per_day: 'Plans par client en un jour',
      refuse_prepaid_cards: 'Cartes prépayées refusées pour le crédit',
      card_countries: 'Pays d’émission des cartes acceptés',
      card_must_outlast_plan: 'La carte doit couvrir tout le plan',
      blocked_emails: 'E-mails bloqués',
      blocked_cards: 'Cartes bloquées',
      blocked_ip_ranges: 'Plages IP bloquées',
      allowed_emails: 'E-mails de confiance',
      allowed_cards: 'Cartes de confiance',
      allowed_ip_ranges: 'Plages IP de confiance',
      min_score: 'Score minimal accepté',
      fallback_offers: 'Offres proposées après un refus',
    },
  },
};
