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
  return { accountId, actor, action: 'webhook_set', details: { host: new URL(settings.url).host, events: settings.events, new_secret: settings.issued } };
}

/** A test event's audit entry: what the endpoint answered (its host only, as for `webhook_set`). */
export function webhookTestAudit(accountId: string, actor: Actor, sent: { triggerName: string; statusCode: number | null; error: string | null }) {
  return { accountId, actor, action: 'webhook_test', details: { event: sent.triggerName, status_code: sent.statusCode, ...(sent.error ? { error: sent.error } : {}) } };
}
