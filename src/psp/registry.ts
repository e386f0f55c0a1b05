import type { Database, Sql } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { PspConnector } from './connector.ts';
import { SandboxPsp } from './sandbox/connector.ts';
import { deriveKey } from '../crypto/keys.ts';

/** The connector of every offer that names no other (`offers.psp` defaults to it). */
export const DEFAULT_PSP = 'sandbox';

const NAME = /^[a-z][a-z0-9_]{0,31}$/;
const METHODS = ['attachPaymentMethod', 'authorize', 'capture', 'void', 'refund', 'chargeOffSession', 'retrieve', 'verifyNotification', 'verifyCredentials'] as const;

/** An offer or payment names a connector this build does not have. */
export class UnknownPspError extends Error {
  constructor(
    readonly pspName: string,
    known: readonly string[],
  ) {
    super(`unknown PSP connector "${pspName}" (this build has: ${known.join(', ')})`);
  }
}

/**
 * The PSP connectors of this process, by name (`offers.psp`). Built once by the composition root
 * and checked then: a bad name, a duplicate or an incomplete connector stops the boot.
 */
export class PspRegistry {
  readonly #connectors = new Map<string, PspConnector>();

  constructor(connectors: readonly PspConnector[]) {
    for (const c of connectors) {
      if (!NAME.test(c.name)) throw new TypeError(`PSP connector name "${c.name}" must match ${NAME}`);
      if (this.#connectors.has(c.name)) throw new TypeError(`PSP connector "${c.name}" is registered twice`);
      const missing = METHODS.filter((m) => typeof c[m] !== 'function');
      if (missing.length > 0) throw new TypeError(`PSP connector "${c.name}" lacks ${missing.join(', ')}`);
      this.#connectors.set(c.name, c);
    }
    if (!this.#connectors.has(DEFAULT_PSP)) throw new TypeError(`the default PSP connector "${DEFAULT_PSP}" is not registered`);
  }

  /** The connector called `name`; throws {@link UnknownPspError} for a name this build lacks. */
  get(name: string): PspConnector {
    const c = this.#connectors.get(name);
    if (!c) throw new UnknownPspError(name, this.names);
    return c;
  }

  has(name: string): boolean {
    return this.#connectors.has(name);
  }

  get names(): string[] {
    return [...this.#connectors.keys()].sort();
  }

  /** The built-in sandbox PSP, for its challenge page (which is not part of the connector contract). */
  get sandbox(): SandboxPsp {
    const c = this.get(DEFAULT_PSP);
    if (!(c instanceof SandboxPsp)) throw new TypeError(`the "${DEFAULT_PSP}" connector is not the built-in sandbox PSP`);
    return c;
  }

  /** Fails when a stored offer names a connector this build lacks: better at boot than at a shopper's payment. */
  async assertOffersUseKnownPsps(sql: Sql): Promise<void> {
    const { rows } = await sql.query<{ psp: string }>('SELECT DISTINCT psp FROM offers ORDER BY psp');
    const unknown = rows.map((r) => r.psp).filter((n) => !this.has(n));
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
}

/** The registry of this build: the sandbox PSP (the default). Back-mode connectors join here (docs/psp-connectors.md). */
export function createPspRegistry(opts: PspRegistryOptions): PspRegistry {
  // Its own HKDF label (same convention as crypto/keys.ts), so every process on the master key
  // signs and checks sandbox notifications alike, and the key serves nothing else.
  const notificationSecret = deriveKey(opts.masterKey, 'sandbox-psp-notifications');
  return new PspRegistry([new SandboxPsp({ db: opts.db, clock: opts.clock, publicUrl: opts.publicUrl, notificationSecret })]);
}
