import type { Database } from '../../db/database.ts';
import { listMessages, type InboxMessage } from '../../messaging/outbound-message-repository.ts';

/**
 * The e-mails and SMS the service sent (or tried to send) for an account, newest first, at most
 * `limit`, optionally only one purchase's: what the sandbox inbox shows (docs/messaging.md).
 */
export function sentMessages(deps: { db: Database }, accountId: string, filter: { purchaseId?: string; limit: number }): Promise<InboxMessage[]> {
  return listMessages(deps.db, accountId, filter);
}
