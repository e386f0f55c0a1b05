import type { Logger } from 'pino';
import type { OfferCache } from '../accounts/offers.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { Messenger } from '../messaging/messenger.ts';
import type { PspConnector } from '../psp/connector.ts';

/** What the payment flows need: a narrow view of the services. */
export interface PaymentDeps {
  db: Database;
  clock: Clock;
  offers: OfferCache;
  psps: { get(name: string): PspConnector };
  messenger: Messenger;
  publicUrl: string;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/** How long a pledge stays reserved while its PSP call (or 3-D Secure challenge) runs. */
export const PLEDGE_RESERVATION_MS = 15 * 60_000;
