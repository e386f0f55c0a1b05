import type { Clock } from '../domain/clock.ts';
import type { PspConnector } from './connector.ts';
import type { PspHttp } from './psp-http.ts';
import type { PspOperations } from './kit/operations.ts';
import type { PspLogger } from './kit/json-call.ts';

/**
 * What a connector folder exports besides its connector: how to build one for a merchant's PSP
 * account (back mode, docs/psp-connectors.md#connector-instances-and-the-registry). The registry
 * lists the definitions of this build (`GET /api/backoffice/psps`) and builds one connector
 * instance per PSP account from them: credentials in, nothing global.
 */
export interface ConnectorDefinition {
  /** Registry name (`stripe`, `adyen`, …), stored on PSP accounts and payments. */
  readonly name: string;
  /** Shown to merchant staff. */
  readonly label: string;
  readonly environments: readonly PspEnvironment[];
  /** The credential fields of this PSP's credential kind, in the order a form shows them. */
  readonly credentialFields: readonly CredentialField[];
  /**
   * Rules across or beyond the fields' patterns (e.g. Ogone: no `[` in a SHA passphrase):
   * the first problem, naming its field, or undefined.
   */
  validate?(credentials: Readonly<Record<string, string>>, environment: PspEnvironment): { field: string; message: string } | undefined;
  /** The PSP's own base URL for an environment; a PSP account's `endpoint_url` overrides it. */
  baseUrl(environment: PspEnvironment, credentials: Readonly<Record<string, string>>): string;
  /**
   * The hosts the PSP publishes for its API in each environment, each list citing its source:
   * in production the only hosts its connector calls and a PSP account's `endpoint_url` may
   * name, beside the operator's PSP_ENDPOINT_ALLOWLIST (src/psp/endpoints.ts). A leading `*`
   * stands for the start of the first label, nothing else (Adyen's live `*-checkout-live.adyenpayments.com`).
   */
  readonly publishedHosts: Readonly<Record<PspEnvironment, readonly string[]>>;
  /**
   * `false` when the PSP sends no notification Chipin can verify (none at all, or unsigned): its
   * connector refuses every one, outcomes are read from the PSP (`retrieve`), and the back office
   * gives no notification URL to set there. Absent: it takes them.
   */
  readonly takesNotifications?: false;
  /**
   * The currencies this PSP takes, each with the step its amounts go by in Chipin's minor units
   * (ISO 4217's): Midtrans `{ IDR: 100 }`, whole rupiah, no sen. Absent: any currency, any amount.
   * An offer in another currency is not bound to an account of this PSP, and a purchase whose
   * amount is off the step is refused at creation ({@link currencyRefusal}, {@link amountStepRefusal}),
   * so that the connector's own refusal before any call stays a backstop.
   */
  readonly currencies?: Readonly<Record<string, number>>;
  /**
   * How long this PSP's manual-capture authorisations (holds) stay capturable, per card brand
   * where it documents it, how long a voided one may still weigh on the shopper's card, and
   * whether it can place a hold merchant-initiated (docs/money-operations.md#re-authorisation).
   * Absent: 7 days, not documented, no merchant-initiated hold.
   */
  readonly authorizationValidity?: AuthorizationValidity;
  /** One connector for one PSP account. Must not call the PSP (the registry builds lazily and caches). */
  create(account: PspAccountConfig, context: ConnectorContext): PspConnector;
}

export type PspEnvironment = 'test' | 'live';

/** See {@link ConnectorDefinition.authorizationValidity}; the table: docs/psp-connectors.md#authorisation-validity. */
interface AuthorizationValidity {
  /** Days a hold stays capturable when its card brand has no figure of its own. */
  readonly default: number;
  /** Days per card brand, as the tokeniser names it (`visa`, `mastercard`, …), where the PSP documents it. */
  readonly byBrand?: Readonly<Record<string, number>>;
  /**
   * Days per card brand of a merchant-initiated hold (a renewal), where the PSP documents a
   * shorter window than the customer-initiated one (Stripe: Visa 4 days 18 hours). Fractions allowed.
   */
  readonly merchantInitiatedByBrand?: Readonly<Record<string, number>>;
  /**
   * Hours a voided hold may still show on the shopper's card before the issuer releases it: the
   * longest two holds may coexist after a re-authorisation. 0: released at the void; null: the PSP
   * does not document it (the issuer decides).
   */
  readonly voidReleaseHours: number | null;
  /** Where the figures come from: the PSP's page, or "not documented" and what was assumed. */
  readonly source: string;
  /**
   * Its connector's `chargeOffSession` honours `capture: 'manual'`: a merchant-initiated hold on
   * the stored card, what a re-authorisation needs. Absent: it does not (the lapse fallback applies).
   */
  readonly offSessionHold?: true;
}

/** Days before which a hold is assumed to lapse where the PSP says nothing: card networks' common 7 days for online payments. */
export const DEFAULT_HOLD_DAYS = 7;

/** Days a hold of a `brand` card stays capturable at the PSP of `definition`; `merchantInitiated` for a renewal's hold. */
export function holdValidityDays(definition: Pick<ConnectorDefinition, 'authorizationValidity'> | undefined, brand: string | undefined, merchantInitiated = false): number {
  const v = definition?.authorizationValidity;
  if (!v) return DEFAULT_HOLD_DAYS;
  const b = brand?.toLowerCase();
  const mit = merchantInitiated && b ? v.merchantInitiatedByBrand?.[b] : undefined;
  return mit ?? (b ? v.byBrand?.[b] : undefined) ?? v.default;
}

export interface CredentialField {
  name: string;
  /** Never returned after saving: reads show `…` and its last 4 characters. */
  secret: boolean;
  required: boolean;
  /** A regular expression (source, anchored by the validator) the value must match. */
  pattern?: string;
  enum?: readonly string[];
  /** Required only in these environments (Adyen's `live_url_prefix`: live only). */
  environments?: readonly PspEnvironment[];
  /** Where the merchant finds it in the PSP's back office. */
  description: string;
  /** The expected format in words, as a refusal states it (`sk_test_… or sk_live_…`); else the pattern. */
  format?: string;
  /**
   * The value parsed for what it is, past its pattern (docs/psp-connectors.md#credential-checks):
   * a public key read as one, a URL built from it, a key decoded to its bytes. Answers what was
   * expected when the value cannot be used (never quoting it), undefined when it can. Run when an
   * account is saved (with or without the PSP's check) and on every stored account read, which an
   * answer here marks as needing attention.
   */
  check?(value: string, environment: PspEnvironment): string | undefined;
  /**
   * Made by the PSP for the webhook that points at Chipin's notification URL, which exists only
   * once the PSP account is saved (`/api/psp/<psa_id>/notifications`): never required, added to
   * the saved account afterwards. Until then the connector refuses every notification.
   */
  afterWebhook?: boolean;
}

/** A merchant's PSP account, credentials opened: what a connector instance is built from. */
export interface PspAccountConfig {
  /** `psa_<uuid>` without prefix. */
  id: string;
  environment: PspEnvironment;
  credentials: Readonly<Record<string, string>>;
  /** The account's base URL: its `endpoint_url`, else the definition's {@link ConnectorDefinition.baseUrl}. */
  baseUrl: string;
}

export interface ConnectorContext {
  clock: Clock;
  /** Chipin's PUBLIC_URL: where PSPs send shoppers back and notifications to. */
  publicUrl: string;
  /** Time limit of one PSP call, in milliseconds; past it the call fails as `unreachable`. */
  timeoutMs: number;
  /** The only way a connector reaches its PSP: the service's outbound client, scoped to this account's PSP (src/psp/psp-http.ts). */
  http: PspHttp;
  /**
   * The PSP operation log of this connector instance (src/psp/kit/operations.ts), scoped to its
   * PSP account: where its mutating calls' idempotency lives, shared by every process.
   */
  operations: PspOperations;
  /** Debug logging of PSP calls (method, path, status, request id: never a body or a header value). */
  logger?: PspLogger;
}

/** Why an offer in `currency` cannot pay through this PSP, or undefined when it can. */
export function currencyRefusal(definition: Pick<ConnectorDefinition, 'label' | 'currencies'>, currency: string): string | undefined {
  const taken = definition.currencies;
  if (taken === undefined || taken[currency] !== undefined) return undefined;
  return `${definition.label} takes ${Object.keys(taken).join(', ')} only; this offer is in ${currency}`;
}

/**
 * Why this PSP cannot charge `amountCents` of `currency` as it is (Midtrans: sen in an IDR
 * amount), or undefined when it can. Never rounded: the merchant prices the purchase again.
 */
export function amountStepRefusal(definition: Pick<ConnectorDefinition, 'label' | 'currencies'>, currency: string, amountCents: number): string | undefined {
  const step = definition.currencies?.[currency];
  if (step === undefined || step <= 1 || amountCents % step === 0) return undefined;
  return `must be a multiple of ${step} (whole units of ${currency}: ${definition.label} takes no minor unit)`;
}

/** The first of `charges` this PSP cannot charge as it is ({@link amountStepRefusal}), with why; undefined when it can charge them all. */
export function firstOffStep<C extends { amountCents: number }>(
  definition: Pick<ConnectorDefinition, 'label' | 'currencies'>,
  currency: string,
  charges: Iterable<C>,
): { charge: C; refused: string } | undefined {
  for (const charge of charges) {
    const refused = amountStepRefusal(definition, currency, charge.amountCents);
    if (refused) return { charge, refused };
  }
  return undefined;
}
