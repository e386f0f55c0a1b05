import type { Sql } from '../db/database.ts';
import type { ShopperIdentity } from './identity.ts';

/**
 * The purchases a shopper is party to, across accounts (docs/shopper-space.md#who-sees-what):
 * as the leader (the client's e-mail, or the purchase's phone number) or as a pledger (the pledge's
 * e-mail or phone number; a draft pledge, before the leader's checkout ended, is nobody's yet).
 * Every statement here is filtered by the identity: it is this module's tenancy, where the rest
 * of the service's is the account.
 */

/** The shopper's part in a purchase. */
export interface ShopperParty {
  accountId: string;
  role: 'leader' | 'pledger';
  /** The pledger's pledge (role `pledger`). */
  pledgeId?: string;
}

/** The SQL condition "this identity is the purchase's leader" on `p` (purchases) and `c` (its client); parameters $1 kind, $2 value. */
const LEADER = `(($1 = 'email' AND lower(c.email) = $2) OR ($1 = 'phone' AND p.phone_number = $2))`;
/** The same for a pledge `g`. */
const PLEDGER = `g.state <> 'draft' AND (($1 = 'email' AND lower(g.email) = $2) OR ($1 = 'phone' AND g.phone_number = $2))`;

/** The shopper's part in this purchase, or undefined when they are no party to it (leader first, then their first pledge). */
export async function shopperPartyOf(sql: Sql, identity: ShopperIdentity, purchaseId: string): Promise<ShopperParty | undefined> {
  const { rows } = await sql.query<{ account_id: string; role: 'leader' | 'pledger'; pledge_id: string | null }>(
    `SELECT account_id, role, pledge_id FROM (
       SELECT p.account_id, 'leader' AS role, NULL::uuid AS pledge_id, 0 AS rank, 0 AS position
         FROM purchases p JOIN clients c ON c.id = p.client_id AND c.account_id = p.account_id
        WHERE p.id = $3 AND ${LEADER}
       UNION ALL
       SELECT g.account_id, 'pledger', g.id, 1, g.position
         FROM pledges g
        WHERE g.purchase_id = $3 AND ${PLEDGER}
     ) parties ORDER BY rank, position LIMIT 1`,
    [identity.kind, identity.value, purchaseId],
  );
  const r = rows[0];
  return r && { accountId: r.account_id, role: r.role, ...(r.pledge_id ? { pledgeId: r.pledge_id } : {}) };
}

/** Whether the identity is party to any purchase at all (a sign-in link is sent only then). */
export async function isKnownShopper(sql: Sql, identity: ShopperIdentity): Promise<boolean> {
  const { rows } = await sql.query<{ known: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM purchases p JOIN clients c ON c.id = p.client_id AND c.account_id = p.account_id WHERE ${LEADER})
         OR EXISTS (SELECT 1 FROM pledges g WHERE ${PLEDGER}) AS known`,
    [identity.kind, identity.value],
  );
  return rows[0]?.known === true;
}

/** The merchant accounts the identity has a purchase with, as leader or pledger (whose sandbox inbox may show its sign-in messages). */
export async function accountsOfShopper(sql: Sql, identity: ShopperIdentity): Promise<string[]> {
  const { rows } = await sql.query<{ account_id: string }>(
    `SELECT p.account_id FROM purchases p JOIN clients c ON c.id = p.client_id AND c.account_id = p.account_id WHERE ${LEADER}
      UNION SELECT g.account_id FROM pledges g WHERE ${PLEDGER}`,
    [identity.kind, identity.value],
  );
  return rows.map((r) => r.account_id);
}

/** One line of the shopper's list: a purchase and their part in it. */
export interface ShopperPurchaseRow {
  account_id: string;
  purchase_id: string;
  merchant_name: string;
  title: string;
  amount_cents: number;
  currency: string;
  state: string;
  language: string;
  created_at: Date;
  role: 'leader' | 'pledger';
  pledge_id: string | null;
  pledge_amount_cents: number | null;
  pledge_state: string | null;
  /** The offer's type (INSTALLMENTS, DEFERRED, DOWN_PAYMENT, SHARED): what its state means to the shopper. */
  offer_type: string;
  /** The leader's: an installment of the plan is still to collect after a refused collection (a payment overdue). */
  overdue: boolean;
}

/** Every purchase the identity is party to, newest first; a purchase where they are both leader and pledger once, as the leader. */
export async function listShopperPurchases(sql: Sql, identity: ShopperIdentity, limit = 200): Promise<ShopperPurchaseRow[]> {
  const { rows } = await sql.query<ShopperPurchaseRow>(
    `SELECT DISTINCT ON (p.created_at, p.id) p.account_id, p.id AS purchase_id, a.name AS merchant_name, p.title, p.amount_cents, p.currency,
            p.state, p.language, p.created_at, parties.role, parties.pledge_id, g.amount_cents AS pledge_amount_cents, g.state AS pledge_state,
            o.type AS offer_type,
            (parties.role = 'leader' AND EXISTS (SELECT 1 FROM installments i WHERE i.account_id = p.account_id AND i.purchase_id = p.id AND i.state = 'scheduled' AND i.attempts > 0)) AS overdue
       FROM (
         SELECT p.id AS purchase_id, p.account_id, 'leader' AS role, NULL::uuid AS pledge_id, 0 AS rank
           FROM purchases p JOIN clients c ON c.id = p.client_id AND c.account_id = p.account_id
          WHERE ${LEADER}
         UNION ALL
         SELECT g.purchase_id, g.account_id, 'pledger', g.id, 1 + g.position
           FROM pledges g
          WHERE ${PLEDGER}
       ) parties
       JOIN purchases p ON p.id = parties.purchase_id AND p.account_id = parties.account_id
       JOIN accounts a ON a.id = p.account_id
       JOIN offers o ON o.id = p.offer_id AND o.account_id = p.account_id
       LEFT JOIN pledges g ON g.id = parties.pledge_id AND g.account_id = parties.account_id
      ORDER BY p.created_at DESC, p.id, parties.rank
      LIMIT $3`,
    [identity.kind, identity.value, limit],
  );
  return rows;
}

/** The pot of a shared purchase, as a pledger and its leader see it: friends' shares, what they paid, the deadline. */
export interface PotRow {
  deadline_at: Date | null;
  leader_share_cents: number | null;
  friends: number;
  paid_friends: number;
  pledged_cents: number;
  collected_cents: number;
}

export async function potOf(sql: Sql, accountId: string, purchaseId: string): Promise<PotRow | undefined> {
  const { rows } = await sql.query<PotRow>(
    `SELECT p.pot_deadline_at AS deadline_at, p.leader_share_cents,
            count(g.id)::int4 AS friends,
            (count(g.id) FILTER (WHERE g.state = 'paid'))::int4 AS paid_friends,
            COALESCE(sum(g.amount_cents) FILTER (WHERE g.state <> 'closed'), 0)::int8 AS pledged_cents,
            COALESCE(sum(g.amount_cents) FILTER (WHERE g.state = 'paid'), 0)::int8 AS collected_cents
       FROM purchases p LEFT JOIN pledges g ON g.purchase_id = p.id AND g.account_id = p.account_id AND g.state <> 'draft'
      WHERE p.account_id = $1 AND p.id = $2
      GROUP BY p.id, p.pot_deadline_at, p.leader_share_cents`,
    [accountId, purchaseId],
  );
  return rows[0];
}

/** One receipt or notice sent to the shopper about a purchase. */
export interface ReceiptRow {
  id: string;
  channel: 'email' | 'sms';
  subject: string | null;
  body: string;
  created_at: Date;
}

/**
 * The receipts and notices (keyed messages: docs/messaging.md) the mail server or SMS gateway took
 * for this identity about this purchase, newest first. Purchase links and pledge invitations are
 * not receipts.
 */
export async function receiptsOf(sql: Sql, accountId: string, purchaseId: string, identity: ShopperIdentity): Promise<ReceiptRow[]> {
  const { rows } = await sql.query<ReceiptRow>(
    `SELECT id, channel, subject, body, created_at FROM outbound_messages
      WHERE account_id = $1 AND purchase_id = $2 AND message_key IS NOT NULL AND accepted
        AND (($3 = 'email' AND channel = 'email' AND lower(recipient) = $4) OR ($3 = 'phone' AND channel = 'sms' AND recipient = $4))
      ORDER BY created_at DESC LIMIT 50`,
    [accountId, purchaseId, identity.kind, identity.value],
  );
  return rows;
}
