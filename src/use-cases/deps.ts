import type { Logger } from 'pino';
import type { OfferCache } from '../accounts/offers.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { Messenger } from '../messaging/messenger.ts';
import type { PspRegistry } from '../psp/registry.ts';
import type { RiskDeps } from './payment-risk.ts';

/** What the payment use cases need: a narrow view of the services. */
export interface PaymentDeps {
  db: Database;
  clock: Clock;
  offers: OfferCache;
  /** The connector of an offer (its PSP account, else the built-in sandbox) and of a payment (the account it ran on). */
  psps: Pick<PspRegistry, 'forOffer' | 'forPayment' | 'definition'>;
  messenger: Messenger;
  /** Opens the offers' signing secrets (front-end results, `trigger_capture` signatures). */
  box: SecretBox;
  publicUrl: string;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** The payment-time risk decision's rules, card key and scoring hook (docs/risk.md#the-decision-at-payment-time). */
  risk: RiskDeps;
  /**
   * How long a request waits for another operation's claim on the same purchase before answering
   * 409 `operation_in_progress` (docs/money-operations.md#one-money-operation-at-a-time); 2 s when
   * not set. The forced-interleaving tests set 0: their flows must not poll.
   */
  claimWaitMs?: number;
}
