import { createHmac } from 'node:crypto';
import type { Clock } from '../../domain/clock.ts';
import { PspIntegrationError, isPspFault, type AuthorizeInput, type OffSessionInput } from '../connector.ts';
import { assertKey } from '../input-checks.ts';

/**
 * The one idempotency design of the connectors (docs/psp-connectors.md#state-and-idempotency): a
 * log of mutating calls, in the database, keyed by (scope, operation, idempotency key). The same
 * key replays the first outcome whichever process sends it, after any restart; a call whose
 * outcome is unknown (a crash or a fault between sending and recording) is reconciled with the PSP
 * before anything is sent again.
 */

/** One logged call as the store holds it. */
export type OperationRecord = { fingerprint: string; status: 'done'; result: unknown } | { fingerprint: string; status: 'started' };

/** Where the log lives: `PspOperationRepository` (src/psp/psp-operation-repository.ts) in the service and the tests. */
export interface OperationStore {
  /** Records `started` and answers undefined, or answers the row already there (nothing written). */
  begin(scope: string, operation: string, key: string, fingerprint: string, now: Date): Promise<OperationRecord | undefined>;
  /** The call's outcome, replayed from now on (JSON). */
  finish(scope: string, operation: string, key: string, result: unknown, now: Date): Promise<void>;
  /** Drops a `started` row whose call certainly changed nothing (refused before the PSP acted), so a retry sends afresh. */
  forget(scope: string, operation: string, key: string): Promise<void>;
}

/**
 * The operation log of one connector instance: its store, its scope (the PSP account id, or the
 * connector's name without one) and the key its fingerprints are computed with. The registry
 * builds one per connector instance from the database (`ConnectorContext.operations`); the
 * connector only calls {@link once}.
 */
export class PspOperations {
  readonly #store: OperationStore;
  readonly #fingerprintKey: Buffer;
  constructor(
    store: OperationStore,
    /** The connector's name, in its faults. */
    readonly connector: string,
    readonly scope: string,
    /** Keys the parameters' fingerprints (≥ 32 bytes), so that a stored fingerprint never leads back to a card number. */
    fingerprintKey: Buffer,
    readonly clock: Clock,
  ) {
    if (fingerprintKey.length < 32) throw new RangeError('the operation fingerprint key must be at least 32 bytes');
    this.#store = store;
    this.#fingerprintKey = fingerprintKey;
  }

  /** The same log for another connector and scope (the registry gives each PSP account its own). */
  for(connector: string, scope: string): PspOperations {
    return new PspOperations(this.#store, connector, scope, this.#fingerprintKey, this.clock);
  }

  fingerprint(operation: string, params: readonly unknown[]): string {
    return createHmac('sha256', this.#fingerprintKey)
      .update(JSON.stringify([operation, ...params]))
      .digest('hex');
  }

  /**
   * Runs one mutating call once per (operation, idempotency key) in this scope:
   * - first time: records `started`, calls `send`, records its result as `done` and answers it;
   * - `done` with the same parameters: answers the stored result (no PSP call); with other
   *   parameters: `PspIntegrationError('idempotency_conflict')`;
   * - `started`, not done (a crash, a fault, or another process sending it now): calls
   *   `reconcile`, which asks the PSP whether the call took effect and answers its outcome, or
   *   undefined when it certainly did not (then `send` runs). A PSP that keeps idempotency keys
   *   (Stripe, Adyen) reconciles by sending again with the same key.
   * A fault whose outcome is unknown (`unreachable`, `bad_response`) leaves the call `started`;
   * any other error (refused credentials, unknown transaction: the PSP did nothing) forgets it.
   * Results are stored as JSON: `revive` turns the stored JSON back into the answer's type.
   */
  async once<T>(
    operation: string,
    key: string,
    params: readonly unknown[],
    send: () => Promise<T>,
    reconcile: () => Promise<T | undefined>,
    revive: (stored: unknown) => T = (stored) => stored as T,
  ): Promise<T> {
    assertKey(key);
    const print = this.fingerprint(operation, params);
    const prior = await this.#store.begin(this.scope, operation, key, print, this.clock.now());
    if (prior && prior.fingerprint !== print) {
      throw new PspIntegrationError(this.connector, 'idempotency_conflict', `idempotency key "${key}" was already used for another ${operation} call`);
    }
    if (prior?.status === 'done') return revive(prior.result);
    try {
      const result = (prior ? await reconcile() : undefined) ?? (await send());
      await this.#store.finish(this.scope, operation, key, result, this.clock.now());
      return revive(JSON.parse(JSON.stringify(result)));
    } catch (err) {
      if (!isPspFault(err)) await this.#store.forget(this.scope, operation, key);
      throw err;
    }
  }
}

/** Reads back a stored `TransactionResult`: JSON keeps `expiresAt` as a string. */
export function reviveTransaction<T extends { expiresAt?: Date }>(stored: unknown): T {
  const r = stored as { expiresAt?: Date | string };
  if (typeof r.expiresAt === 'string') r.expiresAt = new Date(r.expiresAt);
  return r as T;
}

/**
 * The parameters an `authorize` is logged with (its fingerprint, {@link PspOperations.once}): the
 * same for every connector, so a key reused for another payment is the same conflict everywhere.
 */
export function authorizeParams(input: AuthorizeInput): unknown[] {
  return [input.paymentMethodId, input.amountCents, input.currency, input.capture, input.returnUrl, input.storeForLater === true];
}

/** The parameters a `chargeOffSession` is logged with: the payment, the payment it follows, and `manual` for a hold. */
export function chargeParams(input: OffSessionInput, manual: boolean): unknown[] {
  return [input.paymentMethodId, input.amountCents, input.currency, input.storedCredential?.initialTransactionId ?? null, ...(manual ? ['manual'] : [])];
}
