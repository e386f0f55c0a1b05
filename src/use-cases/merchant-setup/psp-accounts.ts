import { parameterView, type ParameterView } from './offer-parameters.ts';
import type { Logger } from 'pino';
import type { OfferCache } from '../../accounts/offers.ts';
import type { Offer } from '../../accounts/offer.ts';
import type { Actor } from '../../audit/audit-log.ts';
import { recordAudit } from '../../audit/audit-repository.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Database } from '../../db/database.ts';
import type { Clock } from '../../domain/clock.ts';
import { newUuid, parsePublicId, toPublicId } from '../../domain/ids.ts';
import { PspIntegrationError } from '../../psp/connector.ts';
import { maskedCredentials, unusableCredential, validateCredentials } from '../../psp/credentials.ts';
import type { ConnectorDefinition, PspEnvironment } from '../../psp/definition.ts';
import { DEFAULT_PSP, type PspRegistry } from '../../psp/registry.ts';
import {
  deletePspAccount as deleteRow,
  findPspAccount,
  insertPspAccount,
  listPspAccounts as listRows,
  openCredentials,
  pspAccountUse,
  sealCredentials,
  updatePspAccount as updateRow,
  type PspAccountRow,
} from '../../psp-accounts/psp-account-repository.ts';

/** What the PSP-account use cases need. */
export interface PspAccountDeps {
  db: Database;
  box: SecretBox;
  clock: Clock;
  psps: PspRegistry;
  offers: OfferCache;
  deployment: 'sandbox' | 'production';
  logger: Pick<Logger, 'info' | 'warn'>;
}

/** A PSP account as the back office and the CLI show it: every secret as `…` and its last 4 characters. */
export interface PspAccountView {
  id: string;
  psp: string;
  environment: PspEnvironment;
  label: string;
  endpoint_url: string | null;
  credentials: Record<string, string>;
  verified_at: string | null;
  /**
   * A stored credential its connector cannot use (saved before its field was parsed, or written by
   * other means): the field and what it expected. The account needs the merchant's attention;
   * null when every stored credential parses (docs/psp-connectors.md#credential-checks).
   */
  needs_attention: { field: string; message: string } | null;
  created_at: string;
  updated_at: string;
}

export type PspAccountOutcome =
  | { kind: 'ok'; account: PspAccountView }
  | { kind: 'invalid'; field: string; message: string }
  /** The PSP refused the credentials (422 `psp_credentials_rejected`). */
  | { kind: 'rejected'; message: string }
  /** The PSP could not be reached to check them (502 `psp_unreachable`). */
  | { kind: 'unreachable' }
  | { kind: 'not_found' };

export interface PspAccountInput {
  psp: string;
  environment: string;
  label: string;
  credentials: Record<string, unknown>;
  endpoint_url?: string | null;
}

export interface PspAccountPatch {
  label?: string;
  environment?: string;
  /** Fields to set; a field set to null is removed. Fields not named keep their saved value. */
  credentials?: Record<string, unknown>;
  endpoint_url?: string | null;
}

export function viewOf(deps: Pick<PspAccountDeps, 'box' | 'psps'>, row: PspAccountRow): PspAccountView {
  const def = deps.psps.definition(row.psp);
  const credentials = openCredentials(deps.box, row).reveal();
  return {
    id: toPublicId('psa', row.id),
    psp: row.psp,
    environment: row.environment,
    label: row.label,
    endpoint_url: row.endpoint_url,
    credentials: maskedCredentials(def, credentials),
    verified_at: row.verified_at ? new Date(row.verified_at).toISOString() : null,
    needs_attention: (def && unusableCredential(def, credentials, row.environment)) ?? null,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export type Checked = { def: ConnectorDefinition; environment: PspEnvironment; credentials: Record<string, string>; endpointUrl: string | null };

/** Every rule of a PSP account's settings, naming the first field that breaks one (a merchant's and an operator's alike). */
export function check(
  deps: PspAccountDeps,
  psp: string,
  environment: string,
  credentials: Record<string, unknown>,
  endpointUrl: string | null,
): Checked | { field: string; message: string } {
  const def = deps.psps.definition(psp);
  if (!def) return { field: 'psp', message: `unknown PSP "${psp}" (this build has: ${deps.psps.definitions.map((d) => d.name).join(', ')})` };
  if (psp === DEFAULT_PSP && deps.deployment === 'production') return { field: 'psp', message: 'the built-in sandbox PSP is refused in production' };
  if (!(def.environments as readonly string[]).includes(environment)) return { field: 'environment', message: `must be one of ${def.environments.join(', ')} for ${psp}` };
  const env = environment as PspEnvironment;
  const problem = validateCredentials(def, credentials, env);
  if (problem) return problem;
  if (endpointUrl !== null) {
    if (psp === DEFAULT_PSP) return { field: 'endpoint_url', message: 'the built-in sandbox PSP has no endpoint' };
    // Where the PSP is (src/psp/endpoints.ts): in production its own hosts, or the operator's allowlist.
    const endpoints = deps.psps.endpoints;
    if (!endpoints) return { field: 'endpoint_url', message: 'cannot be checked: this registry has no back mode' };
    const bad = endpoints.endpointProblem(def, env, endpointUrl);
    if (bad) return bad;
  }
  return { def, environment: env, credentials: credentials as Record<string, string>, endpointUrl };
}

/** Replaces every credential value in a PSP's message, so that nothing of them reaches a response or a log. */
function scrub(message: string, credentials: Record<string, string>): string {
  let out = message;
  for (const v of Object.values(credentials)) if (v.length >= 4) out = out.split(v).join('[redacted]');
  return out.slice(0, 300);
}

/**
 * The one harmless authenticated call (docs/psp-connectors.md#credentials); answers when it was
 * made, or why it failed.
 */
export async function verify(deps: PspAccountDeps, c: Checked, id: string): Promise<{ at: Date } | { kind: 'rejected'; message: string } | { kind: 'unreachable' }> {
  const connector = deps.psps.build(c.def.name, c.environment, c.credentials, c.endpointUrl, id);
  try {
    const result = await connector.verifyCredentials();
    if (result.ok) return { at: deps.clock.now() };
    return { kind: 'rejected', message: `${c.def.name} refused these credentials: ${scrub(result.message, c.credentials)}` };
  } catch (err) {
    if (!(err instanceof PspIntegrationError)) throw err;
    deps.logger.warn({ psp: c.def.name, psp_error: err.code, message: scrub(err.message, c.credentials) }, 'PSP credentials check failed');
    if (err.code === 'bad_credentials') return { kind: 'rejected', message: `${c.def.name} refused these credentials` };
    return { kind: 'unreachable' };
  }
}

export async function createPspAccount(deps: PspAccountDeps, accountId: string, input: PspAccountInput, opts: { verify: boolean }): Promise<PspAccountOutcome> {
  return createCheckedPspAccount(deps, accountId, input, opts);
}

/**
 * Checks, verifies with its PSP (unless told not to) and stores a PSP account of `owner`, a
 * merchant's account id, or null for one of the operator's collecting accounts
 * (src/use-cases/merchant-setup/operator-accounts.ts): the same rules for both.
 */
export async function createCheckedPspAccount(deps: PspAccountDeps, owner: string | null, input: PspAccountInput, opts: { verify: boolean }): Promise<PspAccountOutcome> {
  const c = check(deps, input.psp, input.environment, input.credentials, input.endpoint_url ?? null);
  if ('field' in c) return { kind: 'invalid', ...c };
  const id = newUuid();
  let verifiedAt: Date | null = null;
  if (opts.verify) {
    const v = await verify(deps, c, id);
    if (!('at' in v)) return v;
    verifiedAt = v.at;
  }
  const row = await insertPspAccount(
    deps.db,
    {
      id,
      accountId: owner,
      psp: c.def.name,
      environment: c.environment,
      label: input.label,
      credentialsEnc: sealCredentials(deps.box, c.credentials),
      endpointUrl: c.endpointUrl,
      verifiedAt,
    },
    deps.clock.now(),
  );
  const facts = { psp_account_id: toPublicId('psa', id), psp: row.psp, environment: row.environment, verified: verifiedAt !== null };
  if (owner === null) deps.logger.info(facts, "operator's collecting account created");
  else deps.logger.info({ account_id: owner, ...facts }, 'PSP account created');
  return { kind: 'ok', account: viewOf(deps, row) };
}

export async function listPspAccounts(deps: PspAccountDeps, accountId: string): Promise<PspAccountView[]> {
  return (await listRows(deps.db, accountId)).map((r) => viewOf(deps, r));
}

export async function getPspAccount(deps: PspAccountDeps, accountId: string, publicId: string): Promise<PspAccountView | undefined> {
  const id = parsePublicId('psa', publicId);
  const row = id && (await findPspAccount(deps.db, accountId, id));
  return row ? viewOf(deps, row) : undefined;
}

/**
 * Changes a PSP account (`PATCH /api/backoffice/psp_accounts/{id}`, its page's form) or, with
 * `recheck`, checks its saved settings with the PSP again (`POST …/{id}/verify`, the page's
 * "Check again"). Changed credentials, environment or endpoint, or a recheck, are verified with
 * the PSP unless `verify` is false; a refusal saves nothing. Written and audited
 * (`psp_account_update` or `psp_account_verify`: the names of the changed settings, never a
 * value) in one transaction.
 */
export async function updatePspAccount(
  deps: PspAccountDeps,
  accountId: string,
  publicId: string,
  patch: PspAccountPatch,
  opts: { verify: boolean; recheck?: boolean; actor: Actor },
): Promise<PspAccountOutcome> {
  const id = parsePublicId('psa', publicId);
  const row = id && (await findPspAccount(deps.db, accountId, id));
  if (!id || !row) return { kind: 'not_found' };
  const saved = openCredentials(deps.box, row).reveal();
  const credentials: Record<string, unknown> = { ...saved };
  for (const [k, v] of Object.entries(patch.credentials ?? {})) {
    if (v === null) delete credentials[k];
    else credentials[k] = v;
  }
  const environment = patch.environment ?? row.environment;
  const endpointUrl = patch.endpoint_url === undefined ? row.endpoint_url : patch.endpoint_url;
  const c = check(deps, row.psp, environment, credentials, endpointUrl);
  if ('field' in c) return { kind: 'invalid', ...c };
  const changedNames = [
    ...(patch.label !== undefined && patch.label !== row.label ? ['label'] : []),
    ...(environment !== row.environment ? ['environment'] : []),
    ...(endpointUrl !== row.endpoint_url ? ['endpoint_url'] : []),
    ...Object.keys(patch.credentials ?? {}).map((k) => `credentials.${k}`),
  ];
  const changed = patch.credentials !== undefined || environment !== row.environment || endpointUrl !== row.endpoint_url;
  let verifiedAt = changed ? null : row.verified_at;
  if ((changed || opts.recheck) && opts.verify) {
    const v = await verify(deps, c, id);
    if (!('at' in v)) return v;
    verifiedAt = v.at;
  }
  const updated = await deps.db.transaction(async (tx) => {
    const written = await updateRow(
      tx,
      accountId,
      id,
      { environment: c.environment, label: patch.label ?? row.label, credentialsEnc: sealCredentials(deps.box, c.credentials), endpointUrl: c.endpointUrl, verifiedAt },
      deps.clock.now(),
    );
    if (written) {
      const action = opts.recheck && changedNames.length === 0 ? 'psp_account_verify' : 'psp_account_update';
      await recordAudit(tx, {
        accountId,
        actor: opts.actor,
        action,
        subject: toPublicId('psa', id),
        details: { changed: changedNames, verified: verifiedAt !== null && verifiedAt !== row.verified_at },
      });
    }
    return written;
  });
  if (!updated) return { kind: 'not_found' };
  deps.psps.invalidate(accountId, id);
  deps.offers.forget(accountId);
  deps.logger.info({ account_id: accountId, psp_account_id: publicId, changed_settings: changed, recheck: opts.recheck === true }, 'PSP account updated');
  return { kind: 'ok', account: viewOf(deps, updated) };
}

export type DeleteOutcome = { kind: 'deleted' } | { kind: 'not_found' } | { kind: 'in_use'; offers: number; payments: number };

/** Deletes a PSP account no offer and no payment uses (a payment's captures and refunds need its account). */
export async function deletePspAccount(deps: PspAccountDeps, accountId: string, publicId: string): Promise<DeleteOutcome> {
  const id = parsePublicId('psa', publicId);
  if (!id) return { kind: 'not_found' };
  const outcome = await deps.db.transaction(async (tx): Promise<DeleteOutcome> => {
    const row = await findPspAccount(tx, accountId, id, true);
    if (!row) return { kind: 'not_found' };
    const use = await pspAccountUse(tx, accountId, id);
    if (use.offers > 0 || use.payments > 0) return { kind: 'in_use', ...use };
    await deleteRow(tx, accountId, id);
    return { kind: 'deleted' };
  });
  if (outcome.kind === 'deleted') {
    deps.psps.invalidate(accountId, id);
    deps.logger.info({ account_id: accountId, psp_account_id: publicId }, 'PSP account deleted');
  }
  return outcome;
}

export interface OfferPspView extends ParameterView {
  merchant_uid: string;
  type: Offer['type'];
  installments: number;
  deferred_days: number;
  currency: string;
  psp: string;
  psp_account_id: string | null;
  payment_mode: Offer['paymentMode'];
  commission_bps: number;
  commission_fixed_cents: number;
  fee_rate_bps: number;
  fixed_fee_cents: number;
  min_amount_cents: number;
  max_amount_cents: number;
  expiry_hours: number;
  pot_deadline_hours: number;
  credit_lender: string | null;
  withdrawal_days: number | null;
}

/**
 * An offer as the back-office API shows it: what was sold (read-only), its editable terms, its PSP
 * account, and its payment mode and commission (read-only: the operator's). A transfer-mode offer
 * shows no PSP account: the operator's collecting accounts are never shown to a merchant.
 */
export function offerView(o: Offer): OfferPspView {
  return {
    merchant_uid: toPublicId('mer', o.id),
    type: o.type,
    installments: o.installments,
    deferred_days: o.deferredDays,
    currency: o.currency,
    psp: o.psp,
    psp_account_id: o.pspAccountId && o.paymentMode === 'back' ? toPublicId('psa', o.pspAccountId) : null,
    payment_mode: o.paymentMode,
    commission_bps: o.commissionBps,
    commission_fixed_cents: o.commissionFixedCents,
    fee_rate_bps: o.feeRateBps,
    fixed_fee_cents: o.fixedFeeCents,
    min_amount_cents: o.minAmountCents,
    max_amount_cents: o.maxAmountCents,
    expiry_hours: o.expiryHours,
    pot_deadline_hours: o.potDeadlineHours,
    credit_lender: o.creditLender,
    withdrawal_days: o.withdrawalDays,
    ...parameterView(o),
  };
}

export async function listOffersWithPsp(deps: PspAccountDeps, accountId: string): Promise<OfferPspView[]> {
  deps.offers.forget(accountId);
  return (await deps.offers.list(accountId)).map(offerView);
}
