import type { Database } from '../db/database.ts';
import { systemClock, type Clock } from '../domain/clock.ts';
import type { Redacted } from '../domain/redacted.ts';
import {
  PspIntegrationError,
  type AmountOperation,
  type AttachInput,
  type AuthorizeInput,
  type RetrieveOptions,
  type OffSessionInput,
  type Operation,
  type PspConnector,
  type TransactionRef,
  type TransactionResult,
  UnusableCredentialError,
} from './connector.ts';
import { unusableCredential, type FieldProblem } from './credentials.ts';
import { PspOperations } from './kit/operations.ts';
import { PspOperationRepository } from './psp-operation-repository.ts';
import type { ConnectorContext, ConnectorDefinition, PspAccountConfig, PspEnvironment } from './definition.ts';
import { CONNECTOR_DEFINITIONS } from './definitions.ts';
import { SandboxPsp } from './sandbox/connector.ts';
import { deriveKey } from '../crypto/keys.ts';
import { ChallengeRelay } from './challenge-relay.ts';
import { PspEndpoints } from './endpoints.ts';
import type { PspLogger } from './kit/json-call.ts';
import { assertOutsideTransactions } from '../db/transaction-scope.ts';

/** The connector of every offer bound to no PSP account (and of payments made before back mode). */
export const DEFAULT_PSP = 'sandbox';

const NAME = /^[a-z][a-z0-9_]{0,31}$/;
const FIELD = /^[a-z][a-z0-9_]{0,63}$/;
const METHODS = ['attachPaymentMethod', 'authorize', 'capture', 'void', 'refund', 'chargeOffSession', 'retrieve', 'verifyNotification', 'verifyCredentials'] as const;

/** How long a built connector instance is used before the registry checks its PSP account again. */
const CONNECTOR_CACHE_MS = 5_000;

/** An offer or payment names a connector this build does not have. */
export class UnknownPspError extends Error {
  constructor(
    readonly pspName: string,
    known: readonly string[],
  ) {
    super(`unknown PSP connector "${pspName}" (this build has: ${known.join(', ')})`);
  }
}

/** A production deployment runs no payment on the built-in sandbox PSP (docs/psp-connectors.md#production). */
export class SandboxInProductionError extends PspIntegrationError {
  constructor(what: string) {
    super(
      'sandbox',
      'not_supported',
      `${what} runs on the built-in sandbox PSP, which a production deployment refuses: bind the offer to a PSP account (PATCH /api/backoffice/offers/{merchant_uid})`,
    );
  }
}

/**
 * A PSP account whose `endpoint_url` is not where its PSP is (src/psp/endpoints.ts), met when a
 * connector is built in production: nothing is sent to it. Saving such an endpoint is refused;
 * this catches an account saved before the rule, or written to the database by other means.
 */
export class EndpointRefusedError extends PspIntegrationError {
  constructor(psp: string, what: string, message: string) {
    super(psp, 'not_supported', `${what}: endpoint_url ${message}`);
  }
}

/** A merchant's PSP account as the registry builds a connector from it (credentials opened, kept in Redacted). */
export interface StoredPspAccount {
  id: string;
  /** null: an operator's collecting account (docs/money-operations.md#transfer-mode). */
  accountId: string | null;
  psp: string;
  environment: PspEnvironment;
  credentials: Redacted<Record<string, string>>;
  endpointUrl: string | null;
  updatedAt: Date;
}

/**
 * Reads one PSP account a merchant account's payments may run on: its own, or an operator's
 * collecting account (transfer mode); `accountId` null: an operator's account only (an inbound
 * notification to it, before its payment tells the merchant). The composition root gives the
 * repository's.
 */
type PspAccountLoader = (accountId: string | null, pspAccountId: string) => Promise<StoredPspAccount | undefined>;

/**
 * A connector bound to the PSP account it was built for (`null`: the built-in sandbox of an
 * offer without one). Payments record `pspAccountId`, so that their later captures, voids and
 * refunds go to the same account whatever happens to the offer.
 */
export class AccountConnector implements PspConnector {
  constructor(
    readonly inner: PspConnector,
    readonly pspAccountId: string | null,
    /** Turns a connector's POST challenge into a URL of ours (absent: the connector never answers one). */
    readonly relay?: ChallengeRelay,
    /**
     * The PSP account is an operator's collecting account (docs/money-operations.md#transfer-mode):
     * its transactions are every transfer-mode merchant's, as the built-in sandbox PSP's are.
     */
    readonly operatorAccount = false,
    /**
     * A stored credential its connector cannot use ({@link unusableCredential}), the connector
     * built nonetheless: what needs it fails as an {@link UnusableCredentialError}, the rest (reads,
     * the reconciliation) goes on. Absent: every stored credential parses.
     */
    readonly credentialProblem?: FieldProblem,
  ) {}
  /** The payment flows and the contract speak of a challenge URL only: a form to post becomes our relay page's URL. */
  async #out(result: Promise<TransactionResult>): Promise<TransactionResult> {
    const r = await result;
    if (!r.challengeForm) return r;
    if (!this.relay) throw new PspIntegrationError(this.inner.name, 'not_supported', 'a 3-D Secure form to post, and no relay to post it');
    const { challengeForm, ...rest } = r;
    return { ...rest, challengeUrl: this.relay.url(challengeForm) };
  }
  get name(): string {
    return this.inner.name;
  }
  get sandbox(): boolean {
    return this.inner.sandbox;
  }
  attachPaymentMethod(input: AttachInput) {
    return this.inner.attachPaymentMethod(input);
  }
  authorize(input: AuthorizeInput) {
    return this.#out(this.inner.authorize(input));
  }
  capture(input: AmountOperation) {
    return this.#out(this.inner.capture(input));
  }
  void(input: Operation) {
    return this.#out(this.inner.void(input));
  }
  refund(input: AmountOperation) {
    return this.#out(this.inner.refund(input));
  }
  chargeOffSession(input: OffSessionInput): Promise<TransactionResult> {
    return this.#out(this.inner.chargeOffSession(input));
  }
  retrieve(transaction: TransactionRef, options?: RetrieveOptions) {
    return this.#out(this.inner.retrieve(transaction, options));
  }
  verifyNotification(input: { headers: Record<string, string | undefined>; rawBody: string }) {
    return this.inner.verifyNotification(input);
  }
  verifyCredentials() {
    return this.inner.verifyCredentials();
  }
}

/** What the registry needs for back mode (per-PSP-account connectors). */
export interface BackModeOptions {
  definitions: readonly ConnectorDefinition[];
  loadAccount: PspAccountLoader;
  /**
   * What every connector gets; its outbound client (see {@link PspEndpoints.httpFor}) and its
   * operation log's scope (the PSP account) are added per PSP account.
   */
  context: Omit<ConnectorContext, 'http'>;
  /** A production deployment refuses the built-in sandbox PSP for payments. */
  production: boolean;
  /** Where PSP calls may go, and the address rule they are made under. */
  endpoints: PspEndpoints;
  /** Seals a connector's 3-D Secure form into a URL of ours (see {@link AccountConnector}). */
  challengeRelay?: ChallengeRelay;
  cacheMs?: number;
  now?: () => number;
}

function checkDefinition(def: ConnectorDefinition): void {
  if (!NAME.test(def.name)) throw new TypeError(`PSP connector name "${def.name}" must match ${NAME}`);
  if (def.environments.length === 0 || def.environments.some((e) => e !== 'test' && e !== 'live')) {
    throw new TypeError(`PSP connector "${def.name}": environments must be a non-empty list of test, live`);
  }
  for (const env of def.environments) {
    if (!Array.isArray(def.publishedHosts?.[env])) throw new TypeError(`PSP connector "${def.name}": publishedHosts.${env} must list the PSP's hosts`);
  }
  const seen = new Set<string>();
  for (const f of def.credentialFields) {
    if (!FIELD.test(f.name)) throw new TypeError(`PSP connector "${def.name}": credential field "${f.name}" must match ${FIELD}`);
    if (seen.has(f.name)) throw new TypeError(`PSP connector "${def.name}": credential field "${f.name}" is declared twice`);
    seen.add(f.name);
    if (f.pattern !== undefined) new RegExp(f.pattern); // a bad pattern stops the boot
  }
  for (const m of ['baseUrl', 'create'] as const) {
    if (typeof def[m] !== 'function') throw new TypeError(`PSP connector "${def.name}" lacks ${m}`);
  }
}

/**
 * The PSP connectors of this process. Two kinds:
 * - process-wide connectors by name (`get`): the built-in sandbox PSP (the connector of every
 *   offer without a PSP account, and of payments made before back mode);
 * - the connector definitions of this build (`src/psp/definitions.ts`), from which one connector
 *   instance is built per merchant PSP account (`forOffer`, `forPayment`, `forAccount`):
 *   credentials in, nothing global. Instances are cached for {@link CONNECTOR_CACHE_MS}; past
 *   that the account row is read again and the instance rebuilt if the account changed
 *   (`updated_at`). A change made in this process (`invalidate`) applies at once.
 * Built once by the composition root and checked then: a bad name, a duplicate or an incomplete
 * connector or definition stops the boot.
 */
export class PspRegistry {
  readonly #connectors = new Map<string, PspConnector>();
  readonly #definitions = new Map<string, ConnectorDefinition>();
  readonly #back: BackModeOptions | undefined;
  readonly #cache = new Map<string, { connector: Promise<AccountConnector>; version: number; checkedAt: number }>();
  #defaultBound: AccountConnector | undefined;

  constructor(connectors: readonly PspConnector[], back?: BackModeOptions) {
    for (const c of connectors) {
      if (!NAME.test(c.name)) throw new TypeError(`PSP connector name "${c.name}" must match ${NAME}`);
      if (this.#connectors.has(c.name)) throw new TypeError(`PSP connector "${c.name}" is registered twice`);
      const missing = METHODS.filter((m) => typeof c[m] !== 'function');
      if (missing.length > 0) throw new TypeError(`PSP connector "${c.name}" lacks ${missing.join(', ')}`);
      this.#connectors.set(c.name, c);
    }
    if (!this.#connectors.has(DEFAULT_PSP)) throw new TypeError(`the default PSP connector "${DEFAULT_PSP}" is not registered`);
    for (const d of back?.definitions ?? []) {
      checkDefinition(d);
      if (this.#definitions.has(d.name)) throw new TypeError(`PSP connector definition "${d.name}" is listed twice`);
      this.#definitions.set(d.name, d);
    }
    this.#back = back;
  }

  /** Where this registry's connectors may call (the `endpoint_url` rule of saving a PSP account). */
  get endpoints(): PspEndpoints | undefined {
    return this.#back?.endpoints;
  }

  /** Opens the 3-D Secure forms this registry's connectors sealed into relay URLs (the `/psp-challenge` page). */
  get challengeRelay(): ChallengeRelay | undefined {
    return this.#back?.challengeRelay;
  }

  /** The process-wide connector called `name`; throws {@link UnknownPspError} for a name this build lacks. */
  get(name: string): PspConnector {
    const c = this.#connectors.get(name);
    if (!c) throw new UnknownPspError(name, this.names);
    return c;
  }

  has(name: string): boolean {
    return this.#connectors.has(name) || this.#definitions.has(name);
  }

  get names(): string[] {
    return [...new Set([...this.#connectors.keys(), ...this.#definitions.keys()])].sort();
  }

  /** The connector definitions of this build, in their listing order (`GET /api/backoffice/psps`). */
  get definitions(): ConnectorDefinition[] {
    return [...this.#definitions.values()];
  }

  definition(name: string): ConnectorDefinition | undefined {
    return this.#definitions.get(name);
  }

  /** The built-in sandbox PSP, for its challenge page (which is not part of the connector contract). */
  get sandbox(): SandboxPsp {
    const c = this.get(DEFAULT_PSP);
    if (!(c instanceof SandboxPsp)) throw new TypeError(`the "${DEFAULT_PSP}" connector is not the built-in sandbox PSP`);
    return c;
  }

  #production(): boolean {
    return this.#back?.production ?? false;
  }

  #default(): AccountConnector {
    return (this.#defaultBound ??= new AccountConnector(this.get(DEFAULT_PSP), null));
  }

  /** The connector an offer pays through from its next payment on: its PSP account's, else the built-in sandbox. */
  async forOffer(offer: { id: string; accountId: string; pspAccountId: string | null }): Promise<AccountConnector> {
    if (offer.pspAccountId === null) {
      if (this.#production()) throw new SandboxInProductionError(`offer mer_${offer.id}`);
      return this.#default();
    }
    return this.forAccount(offer.accountId, offer.pspAccountId);
  }

  /** The connector a payment ran on (its later captures, voids, refunds, retrievals). */
  async forPayment(payment: { account_id: string; psp_account_id?: string | null; psp: string }): Promise<AccountConnector> {
    if (!payment.psp_account_id) return payment.psp === DEFAULT_PSP ? this.#default() : new AccountConnector(this.get(payment.psp), null);
    return this.forAccount(payment.account_id, payment.psp_account_id);
  }

  /**
   * The connector of one PSP account a merchant's payments run on (its own, or an operator's
   * collecting account), built once and cached briefly. `accountId` null: an operator's account,
   * before any merchant is known (an inbound notification). Cached per merchant and account, so a
   * merchant is never handed another merchant's account from the cache.
   */
  async forAccount(accountId: string | null, pspAccountId: string): Promise<AccountConnector> {
    const back = this.#back;
    if (!back) throw new PspIntegrationError(DEFAULT_PSP, 'not_supported', 'this registry has no back mode');
    assertOutsideTransactions('the PSP account connector cache'); // a miss queries outside the caller's transaction
    const now = (back.now ?? Date.now)();
    const ttl = back.cacheMs ?? CONNECTOR_CACHE_MS;
    const key = `${accountId ?? 'operator'}/${pspAccountId}`;
    const hit = this.#cache.get(key);
    if (hit && now - hit.checkedAt < ttl) return hit.connector;
    const row = await back.loadAccount(accountId, pspAccountId);
    if (!row) {
      this.#cache.delete(key);
      throw new PspIntegrationError('unknown', 'not_supported', `PSP account psa_${pspAccountId} does not exist`);
    }
    const version = row.updatedAt.getTime();
    if (hit && hit.version === version) {
      hit.checkedAt = now;
      return hit.connector;
    }
    const connector = Promise.resolve().then(() => {
      const credentials = row.credentials.reveal();
      const def = this.#definitions.get(row.psp);
      const problem = def && unusableCredential(def, credentials, row.environment);
      let inner: PspConnector;
      try {
        inner = this.build(row.psp, row.environment, credentials, row.endpointUrl, row.id);
      } catch (err) {
        // A stored value its connector refuses to be built with: a typed fault naming it, never a TypeError (a 500).
        if (problem && err instanceof TypeError) throw new UnusableCredentialError(row.psp, problem.field, problem.message);
        throw err;
      }
      return new AccountConnector(inner, row.id, back.challengeRelay, row.accountId === null, problem);
    });
    this.#cache.set(key, { connector, version, checkedAt: now });
    connector.catch(() => this.#cache.delete(key)); // never cache a failure
    if (this.#cache.size > 10_000) this.#cache.delete(this.#cache.keys().next().value!);
    return connector;
  }

  /**
   * A connector for these settings, not cached (saving a PSP account verifies its credentials
   * with one). The built-in sandbox answers its own instance; a production deployment refuses it.
   */
  build(psp: string, environment: PspEnvironment, credentials: Readonly<Record<string, string>>, endpointUrl: string | null, id = 'unsaved'): PspConnector {
    if (psp === DEFAULT_PSP) {
      if (this.#production()) throw new SandboxInProductionError(`PSP account psa_${id}`);
      return this.get(DEFAULT_PSP);
    }
    const def = this.#definitions.get(psp);
    const back = this.#back;
    if (!def || !back) throw new UnknownPspError(psp, this.names);
    if (endpointUrl !== null && this.#production()) {
      // Checked again at every build, not only on saving: see EndpointRefusedError.
      const problem = back.endpoints.endpointProblem(def, environment, endpointUrl);
      if (problem) throw new EndpointRefusedError(psp, `PSP account psa_${id}`, problem.message);
    }
    const config: PspAccountConfig = { id, environment, credentials, baseUrl: endpointUrl ?? def.baseUrl(environment, credentials) };
    return def.create(config, { ...back.context, http: back.endpoints.httpFor(def, environment), operations: back.context.operations.for(def.name, id) });
  }

  /**
   * Forgets the cached connector of a PSP account changed or deleted in this process; `accountId`
   * null: an operator's account, cached once per merchant that paid on it.
   */
  invalidate(accountId: string | null, pspAccountId: string): void {
    if (accountId !== null) {
      this.#cache.delete(`${accountId}/${pspAccountId}`);
      return;
    }
    for (const key of [...this.#cache.keys()]) if (key.endsWith(`/${pspAccountId}`)) this.#cache.delete(key);
  }

  /**
   * Fails when a stored offer or PSP account names a connector this build lacks (the names from
   * `pspNamesInUse`): better at boot than at a shopper's payment.
   */
  assertKnownPsps(namesInUse: readonly string[]): void {
    const unknown = namesInUse.filter((n) => !this.has(n));
    if (unknown.length > 0) {
      throw new Error(`offers use PSP connectors this build lacks: ${unknown.join(', ')} (this build has: ${this.names.join(', ')})`);
    }
  }
}

export interface PspRegistryOptions {
  db: Database;
  clock: Clock;
  publicUrl: string;
  /** The service master key; each connector derives its own keys from it. */
  masterKey: Buffer;
  /** Back mode: how PSP accounts are read (the repository, credentials opened). Absent: process-wide connectors only. */
  loadAccount?: PspAccountLoader;
  /** The connector definitions of this build; `CONNECTOR_DEFINITIONS` by default (tests add their own). */
  definitions?: readonly ConnectorDefinition[];
  production?: boolean;
  /** Hosts the operator lets PSP accounts name beside their PSP's own (PSP_ENDPOINT_ALLOWLIST). */
  endpointAllowlist?: readonly string[];
  /** Time limit of one PSP call (ms). Default 15 s. */
  timeoutMs?: number;
  cacheMs?: number;
  /** Debug logging of PSP calls (src/psp/kit/json-call.ts). */
  logger?: PspLogger;
}

/** The registry of this build: the built-in sandbox PSP, and the connector definitions of `src/psp/definitions.ts`. */
export function createPspRegistry(opts: PspRegistryOptions): PspRegistry {
  // Its own HKDF label (same convention as crypto/keys.ts), so every process on the master key
  // signs and checks sandbox notifications alike, and the key serves nothing else.
  const notificationSecret = deriveKey(opts.masterKey, 'sandbox-psp-notifications');
  const sandbox = new SandboxPsp({ db: opts.db, clock: opts.clock, publicUrl: opts.publicUrl, notificationSecret });
  const loadAccount: PspAccountLoader = opts.loadAccount ?? (async () => undefined);
  const challengeRelay = new ChallengeRelay(deriveKey(opts.masterKey, 'psp-challenge-relay'), opts.publicUrl);
  // One log for every connector of every process on the database; each PSP account its own scope.
  const operations = new PspOperations(new PspOperationRepository(opts.db), DEFAULT_PSP, DEFAULT_PSP, deriveKey(opts.masterKey, 'psp-operation-fingerprints'), systemClock);
  return new PspRegistry([sandbox], {
    definitions: opts.definitions ?? CONNECTOR_DEFINITIONS,
    loadAccount,
    // A real PSP lives in real time: its test environment does not follow the sandbox clock, so
    // its connectors read hold dates and lapses on the system clock (docs/jobs-and-clock.md). Only
    // the built-in sandbox PSP, which is ours, travels with the sandbox clock.
    context: { clock: systemClock, publicUrl: opts.publicUrl, timeoutMs: opts.timeoutMs ?? 15_000, operations, ...(opts.logger ? { logger: opts.logger } : {}) },
    production: opts.production ?? false,
    endpoints: new PspEndpoints(opts.production ? 'production' : 'sandbox', opts.endpointAllowlist ?? []),
    challengeRelay,
    ...(opts.cacheMs !== undefined ? { cacheMs: opts.cacheMs } : {}),
  });
}
