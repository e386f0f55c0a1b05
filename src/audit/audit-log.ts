/**
 * Every action the audit log records (docs/back-office.md#audit-log): the back office shows each by
 * its label in the page's language, which the texts must have for every one (a type, so a new
 * action without its labels does not compile).
 */
export const AUDIT_ACTIONS = [
  'sign_in',
  'sign_out',
  'refund',
  'cancel',
  'dispute_evidence_sent',
  'webhook_set',
  'webhook_test',
  'webhook_remove',
  'delivery_replay',
  'password_reset',
  'password_change',
  'role_change',
  'member_remove',
  'member_invite',
  'member_invite_revoke',
  'member_join',
  'api_key_create',
  'api_key_rotate',
  'api_key_revoke',
  'offer_create',
  'offer_update',
  'offer_psp_account',
  'psp_account_create',
  'psp_account_update',
  'psp_account_delete',
  'psp_account_verify',
  'time_zone_set',
  'country_set',
  'risk_rules_update',
  'risk_scoring_hook_update',
  'risk_scoring_hook_delete',
  'reconciliation_mismatch_update',
  'payout_bank_details_set',
  'payout_mark',
  'payout_export',
  'payout_file_download',
  'payout_hold_release',
  'transfer_received',
  'refund_transfer_sent',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acts: a dashboard user (their e-mail is the label), an API key, or the operator's CLI. */
export interface Actor {
  userId?: string;
  /** `ana@shop.example`, `api_key:key_…`, `cli`: kept as text, so it outlives a removed user. */
  label: string;
}

/** A signed-in dashboard user as the actor of what they do: their id, and their e-mail as the label that outlives them. */
export function actorOf(user: { userId: string; email: string }): Actor {
  return { userId: user.userId, label: user.email };
}

/**
 * The entry of a webhook change. The Deliveries service keeps its transaction to itself, so the
 * routes record it right after the change. Only the URL's host and the events: the URL's path or
 * query may carry the merchant's own secret, and the signing secret never goes here.
 */
export function webhookAudit(accountId: string, actor: Actor, settings: { url: string; events: readonly string[]; issued: boolean }) {
  return { accountId, actor, action: 'webhook_set' as const, details: { host: new URL(settings.url).host, events: settings.events, new_secret: settings.issued } };
}

/** The entry of a webhook endpoint removed: the host it had, and how many pending webhooks were cancelled with it. */
export function webhookRemoveAudit(accountId: string, actor: Actor, removed: { host: string; cancelled: number }) {
  return { accountId, actor, action: 'webhook_remove' as const, details: { host: removed.host, cancelled_deliveries: removed.cancelled } };
}

/** A test event's audit entry: what the endpoint answered (its host only, as for `webhook_set`). */
export function webhookTestAudit(accountId: string, actor: Actor, sent: { triggerName: string; statusCode: number | null; error: string | null }) {
  return { accountId, actor, action: 'webhook_test' as const, details: { event: sent.triggerName, status_code: sent.statusCode, ...(sent.error ? { error: sent.error } : {}) } };
}
