import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { PspRegistry } from '../psp/registry.ts';

/**
 * What the money engine needs of the services: the database, the clock, the connectors and a
 * logger. Every use case's deps (`PaymentDeps`) are a superset, handed over as they are.
 */
export interface MoneyDeps {
  db: Database;
  clock: Clock;
  /** The connector of an offer (its PSP account, else the built-in sandbox) and of a payment (the account it ran on). */
  psps: Pick<PspRegistry, 'forOffer' | 'forPayment' | 'definition'>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * How long a request waits for another operation's claim on the same purchase before answering
   * 409 `operation_in_progress` (docs/money-operations.md#one-money-operation-at-a-time); 2 s when
   * not set. The forced-interleaving tests set 0: their flows must not poll.
   */
  claimWaitMs?: number;
}
