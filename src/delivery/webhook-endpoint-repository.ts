import type { Redacted } from '../domain/redacted.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Sql } from '../db/database.ts';
import { isTriggerName, type TriggerName } from './triggers.ts';

/** An account's webhook endpoint, secrets opened (and wrapped so that they never print). */
export interface WebhookEndpoint {
  accountId: string;
  url: string;
  events: TriggerName[];
  token: Redacted;
  secret: Redacted;
  /** The secret a rotation replaced, which still signs beside `secret` until `previousSecretUntil`. */
  previousSecret: Redacted | null;
  previousSecretUntil: Date | null;
  /** Set when the endpoint answered 410 Gone: nothing is sent to it until its URL is set again. */
  disabledAt: Date | null;
  disabledReason: string | null;
  updatedAt: Date;
}

/**
 * Stores the account's endpoint in one statement (re-enabling it). A new endpoint takes the given
 * token and secret; an existing one keeps its own unless `rotateUntil` is given, when it takes
 * them and its current secret becomes the previous one, still signing until `rotateUntil`.
 * Answers the token and secret now stored (sealed): the given ones when they were taken.
 */
export async function upsertWebhookEndpoint(
  sql: Sql,
  e: { accountId: string; url: string; events: readonly TriggerName[]; tokenEnc: string; secretEnc: string; rotateUntil: Date | null },
  now: Date,
): Promise<{ tokenEnc: string; secretEnc: string; previousSecretUntil: Date | null }> {
  const rotation = `, token_enc = EXCLUDED.token_enc, secret_enc = EXCLUDED.secret_enc,
       previous_secret_enc = webhook_endpoints.secret_enc, previous_secret_until = $7`;
  const { rows } = await sql.query<{ token_enc: string; secret_enc: string; previous_secret_until: Date | null }>(
    `INSERT INTO webhook_endpoints (account_id, url, events, token_enc, secret_enc, disabled_at, disabled_reason, created_at, updated_at)
     VALUES ($1, $2, $3::text[], $4, $5, NULL, NULL, $6, $6)
     ON CONFLICT (account_id) DO UPDATE SET url = EXCLUDED.url, events = EXCLUDED.events,
       disabled_at = NULL, disabled_reason = NULL, updated_at = EXCLUDED.updated_at${e.rotateUntil ? rotation : ''}
     RETURNING token_enc, secret_enc, previous_secret_until`,
    [e.accountId, e.url, e.events, e.tokenEnc, e.secretEnc, now, ...(e.rotateUntil ? [e.rotateUntil] : [])],
  );
  const r = rows[0]!;
  return { tokenEnc: r.token_enc, secretEnc: r.secret_enc, previousSecretUntil: r.previous_secret_until };
}

interface EndpointRow {
  account_id: string;
  url: string;
  events: string[];
  token_enc: string;
  secret_enc: string;
  disabled_at: Date | null;
  disabled_reason: string | null;
  updated_at: Date;
  previous_secret_enc: string | null;
  previous_secret_until: Date | null;
}

const COLUMNS = 'account_id, url, events, token_enc, secret_enc, disabled_at, disabled_reason, updated_at, previous_secret_enc, previous_secret_until';

function toEndpoint(r: EndpointRow, box: SecretBox): WebhookEndpoint {
  return {
    accountId: r.account_id,
    url: r.url,
    events: r.events.filter(isTriggerName),
    token: box.open(r.token_enc),
    secret: box.open(r.secret_enc),
    previousSecret: r.previous_secret_enc === null ? null : box.open(r.previous_secret_enc),
    previousSecretUntil: r.previous_secret_until,
    disabledAt: r.disabled_at,
    disabledReason: r.disabled_reason,
    updatedAt: r.updated_at,
  };
}

export async function findWebhookEndpoint(sql: Sql, box: SecretBox, accountId: string): Promise<WebhookEndpoint | undefined> {
  const { rows } = await sql.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE account_id = $1`, [accountId]);
  return rows[0] && toEndpoint(rows[0], box);
}

/** The endpoints of several accounts, by account id (the worker reads a batch at once). */
export async function findWebhookEndpoints(sql: Sql, box: SecretBox, accountIds: readonly string[]): Promise<Map<string, WebhookEndpoint>> {
  if (accountIds.length === 0) return new Map();
  const { rows } = await sql.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE account_id = ANY($1::uuid[])`, [[...new Set(accountIds)]]);
  return new Map(rows.map((r) => [r.account_id, toEndpoint(r, box)]));
}

/** The enabled endpoints of these accounts: URL and subscribed triggers only (the dispatcher plans with them). */
export async function enabledEndpointsOf(sql: Sql, accountIds: readonly string[]): Promise<{ account_id: string; url: string; events: string[] }[]> {
  const { rows } = await sql.query<{ account_id: string; url: string; events: string[] }>(
    'SELECT account_id, url, events FROM webhook_endpoints WHERE account_id = ANY($1::uuid[]) AND disabled_at IS NULL',
    [accountIds],
  );
  return rows;
}

/**
 * Removes the account's endpoint, in the caller's transaction, and cancels its webhooks still
 * pending (retries included), as a 410 Gone does: nothing is sent to the URL again, and nothing
 * retries for a day. Answers whether there was one, and how many deliveries were cancelled.
 */
export async function removeWebhookEndpoint(sql: Sql, accountId: string, now: Date): Promise<{ removed: boolean; cancelled: number }> {
  const { rowCount } = await sql.query('DELETE FROM webhook_endpoints WHERE account_id = $1', [accountId]);
  if (rowCount === 0) return { removed: false, cancelled: 0 };
  const cancelled = await sql.query(
    `UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, locked_until = NULL, lease_id = NULL,
       last_error = 'the webhook endpoint was removed', updated_at = $2, completed_at = $2
     WHERE account_id = $1 AND status = 'pending' AND kind = 'webhook'`,
    [accountId, now],
  );
  return { removed: true, cancelled: cancelled.rowCount };
}

/** 410 Gone: the account's endpoint is disabled until its URL is set again. */
export async function disableWebhookEndpoint(sql: Sql, accountId: string, reason: string, now: Date): Promise<void> {
  await sql.query('UPDATE webhook_endpoints SET disabled_at = $2, disabled_reason = $3, updated_at = $2 WHERE account_id = $1', [accountId, now, reason]);
}
