import { randomBytes } from 'node:crypto';
import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import { checkWebhookUrl, WebhookSettingsError } from '../../delivery/endpoints.ts';
import type { Clock } from '../../domain/clock.ts';
import { toPublicId } from '../../domain/ids.ts';
import { HOOK_DECISIONS, SCORING_HOOK_TIMEOUT, type HookDecision } from '../../domain/scoring-hook.ts';
import type { AddressPolicy } from '../../outbound/addresses.ts';
import { deleteScoringHook, findScoringHook, lockScoringHook, saveScoringHook, type StoredScoringHook } from '../../risk/scoring-hook-repository.ts';

export interface ScoringHookSettingsDeps {
  db: Database;
  box: SecretBox;
  clock: Clock;
  /** The webhooks' address rule: the hook's URL is checked as a webhook endpoint's is. */
  policy: AddressPolicy;
}

/** The hook as the back office shows it: never the secret, only that one is set and its last 4 characters. */
export interface ScoringHookView {
  url: string;
  timeout_ms: number;
  on_error: HookDecision;
  enabled: boolean;
  secret_set: boolean;
  secret_last4: string;
  updated_at: string;
  /** Only in the answer of the PUT that generated it (the first, or `rotate_secret`): shown once. */
  secret?: string;
}

export interface ScoringHookInput {
  url: string;
  timeout_ms?: number;
  on_error?: string;
  enabled?: boolean;
  rotate_secret?: boolean;
}

export type SetScoringHookOutcome = { kind: 'ok'; hook: ScoringHookView } | { kind: 'invalid'; field: string; message: string };

/** 256 random bits, prefixed so that a leaked one is recognisable; the HMAC key is the whole string (UTF-8). */
function generateHookSecret(): string {
  return 'hooksec_' + randomBytes(32).toString('base64url');
}

function viewOf(box: SecretBox, hook: StoredScoringHook, shownSecret?: string): ScoringHookView {
  const secret = shownSecret ?? box.open(hook.secretEnc).reveal();
  return {
    url: hook.url,
    timeout_ms: hook.timeoutMs,
    on_error: hook.onError,
    enabled: hook.enabled,
    secret_set: true,
    secret_last4: secret.slice(-4),
    updated_at: hook.updatedAt.toISOString(),
    ...(shownSecret === undefined ? {} : { secret: shownSecret }),
  };
}

/** The account's hook, or undefined when it has none. */
export async function readScoringHook(deps: Pick<ScoringHookSettingsDeps, 'db' | 'box'>, accountId: string): Promise<ScoringHookView | undefined> {
  const hook = await findScoringHook(deps.db, accountId);
  return hook && viewOf(deps.box, hook);
}

/** Only the host of a URL goes to the audit log: its path or query may carry the merchant's own secret (as for `webhook_set`). */
const hostOf = (url: string) => new URL(url).host;

function check(input: ScoringHookInput, policy: AddressPolicy): { field: string; message: string } | undefined {
  try {
    checkWebhookUrl(input.url, policy);
  } catch (err) {
    if (err instanceof WebhookSettingsError) return { field: 'url', message: err.message };
    throw err;
  }
  const t = input.timeout_ms;
  if (t !== undefined && (!Number.isInteger(t) || t < SCORING_HOOK_TIMEOUT.min || t > SCORING_HOOK_TIMEOUT.max))
    return { field: 'timeout_ms', message: `field timeout_ms must be an integer from ${SCORING_HOOK_TIMEOUT.min} to ${SCORING_HOOK_TIMEOUT.max}` };
  if (input.on_error !== undefined && !(HOOK_DECISIONS as readonly string[]).includes(input.on_error))
    return { field: 'on_error', message: 'field on_error must be accept or refuse' };
  return undefined;
}

/**
 * Sets the account's hook, replacing its settings whole (an absent `timeout_ms`, `on_error` or
 * `enabled` takes its default). The signing secret is generated on the first PUT and on
 * `rotate_secret`, and answered that once; otherwise it is kept. Checked, written and audited
 * (`risk_scoring_hook_update`: each changed setting `{from, to}`, the URL as its host, `secret`
 * `generated` / `rotated`, never the secret) in one transaction; a body that changes nothing writes nothing.
 */
export async function setScoringHook(deps: ScoringHookSettingsDeps, accountId: string, actor: Actor, input: ScoringHookInput): Promise<SetScoringHookOutcome> {
  const invalid = check(input, deps.policy);
  if (invalid) return { kind: 'invalid', ...invalid };
  const hook = await deps.db.transaction(async (tx) => {
    const current = await lockScoringHook(tx, accountId);
    const fresh = current === undefined || input.rotate_secret === true ? generateHookSecret() : undefined;
    const next: StoredScoringHook = {
      url: input.url,
      secretEnc: fresh === undefined ? current!.secretEnc : deps.box.seal(fresh),
      timeoutMs: input.timeout_ms ?? SCORING_HOOK_TIMEOUT.default,
      onError: (input.on_error as HookDecision | undefined) ?? 'accept',
      enabled: input.enabled ?? true,
      updatedAt: deps.clock.now(),
    };
    const details: Record<string, unknown> = {};
    if (current?.url !== next.url) details.url = { from: current ? hostOf(current.url) : null, to: hostOf(next.url) };
    if (current?.timeoutMs !== next.timeoutMs) details.timeout_ms = { from: current?.timeoutMs ?? null, to: next.timeoutMs };
    if (current?.onError !== next.onError) details.on_error = { from: current?.onError ?? null, to: next.onError };
    if (current?.enabled !== next.enabled) details.enabled = { from: current?.enabled ?? null, to: next.enabled };
    if (fresh !== undefined) details.secret = current === undefined ? 'generated' : 'rotated';
    if (Object.keys(details).length === 0) return viewOf(deps.box, current!);
    await saveScoringHook(tx, accountId, next);
    await recordAudit(tx, { accountId, actor, action: 'risk_scoring_hook_update', subject: toPublicId('acc', accountId), details });
    return viewOf(deps.box, next, fresh);
  });
  return { kind: 'ok', hook };
}

/** Removes the account's hook (audited `risk_scoring_hook_delete` with its host); false when there was none. */
export async function removeScoringHook(deps: Pick<ScoringHookSettingsDeps, 'db'>, accountId: string, actor: Actor): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const current = await lockScoringHook(tx, accountId);
    if (!current) return false;
    await deleteScoringHook(tx, accountId);
    await recordAudit(tx, { accountId, actor, action: 'risk_scoring_hook_delete', subject: toPublicId('acc', accountId), details: { url: hostOf(current.url) } });
    return true;
  });
}
