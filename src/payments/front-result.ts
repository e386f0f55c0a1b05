import type { SecretBox } from '../crypto/secret-box.ts';
import type { Sql } from '../db/database.ts';
import { frontResultHandover, type FrontResult } from '../delivery/front-result.ts';
import { transactionOf } from '../delivery/transaction.ts';
import { EVENT } from '../domain/events.ts';
import { toPublicId } from '../domain/ids.ts';
import type { Purchase } from '../purchases/purchase.ts';
import { LEADER_PURPOSES } from './leader-payment.ts';

/**
 * The back-mode result of the leader's checkout transaction, for the merchant's front end, and
 * its JWT signed with the offer's secret (DESIGN §5). Undefined before any transaction.
 */
export async function leaderFrontResult(
  sql: Sql,
  box: SecretBox,
  purchase: Pick<Purchase, 'id' | 'accountId' | 'offerId' | 'ref' | 'metadata'>,
  sandbox: boolean,
): Promise<{ result: FrontResult; jwt?: string } | undefined> {
  const { rows } = await sql.query<{ data: Record<string, unknown>; secret: string }>(
    `SELECT e.data, o.signing_secret_enc AS secret FROM purchase_events e JOIN offers o ON o.id = $3 AND o.account_id = e.account_id
     WHERE e.account_id = $1 AND e.purchase_id = $2 AND e.type = $4 AND e.data->>'purpose' = ANY($5::text[])
     ORDER BY e.id DESC LIMIT 1`,
    [purchase.accountId, purchase.id, purchase.offerId, EVENT.transaction, LEADER_PURPOSES],
  );
  const row = rows[0];
  const transaction = row && transactionOf(row.data);
  if (!row || !transaction) return undefined;
  return frontResultHandover(
    { transaction, sandbox, purchase: { uid: toPublicId('pur', purchase.id), reference: purchase.ref, metadata: purchase.metadata } },
    box.open(row.secret).reveal(),
  );
}
