import { parsePublicId } from '../../domain/ids.ts';
import {
  deleteOperatorPspAccount,
  findOperatorPspAccount,
  listOperatorPspAccounts,
  openCredentials,
  operatorPspAccountUse,
  sealCredentials,
  updateOperatorPspAccount,
} from '../../psp-accounts/psp-account-repository.ts';
import {
  check,
  createCheckedPspAccount,
  verify,
  viewOf,
  type DeleteOutcome,
  type PspAccountDeps,
  type PspAccountInput,
  type PspAccountOutcome,
  type PspAccountPatch,
  type PspAccountView,
} from './psp-accounts.ts';

/**
 * The operator's collecting accounts (transfer mode, docs/money-operations.md#transfer-mode): PSP
 * accounts no merchant owns, on any connector, that transfer-mode offers pay through. Made,
 * changed and deleted by the operator's CLI only (`chipin operator-account …`), with the rules and
 * the credentials check of a merchant's PSP account (src/use-cases/merchant-setup/psp-accounts.ts); no merchant's
 * back office or API ever lists or names one.
 */

export async function createOperatorAccount(deps: PspAccountDeps, input: PspAccountInput, opts: { verify: boolean }): Promise<PspAccountOutcome> {
  return createCheckedPspAccount(deps, null, input, opts);
}

export async function listOperatorAccounts(deps: PspAccountDeps): Promise<PspAccountView[]> {
  return (await listOperatorPspAccounts(deps.db)).map((r) => viewOf(deps, r));
}

/**
 * Changes an operator's collecting account or, with `recheck`, checks its saved settings with the
 * PSP again: as a merchant's (`updatePspAccount`), changed credentials, environment or endpoint
 * are verified unless `verify` is false, and a refusal saves nothing. Every process's registry
 * rebuilds its connector within its cache's time (`updated_at` moves forward).
 */
export async function updateOperatorAccount(
  deps: PspAccountDeps,
  publicId: string,
  patch: PspAccountPatch,
  opts: { verify: boolean; recheck?: boolean },
): Promise<PspAccountOutcome> {
  const id = parsePublicId('psa', publicId);
  const row = id && (await findOperatorPspAccount(deps.db, id));
  if (!id || !row) return { kind: 'not_found' };
  const credentials: Record<string, unknown> = { ...openCredentials(deps.box, row).reveal() };
  for (const [k, v] of Object.entries(patch.credentials ?? {})) {
    if (v === null) delete credentials[k];
    else credentials[k] = v;
  }
  const environment = patch.environment ?? row.environment;
  const endpointUrl = patch.endpoint_url === undefined ? row.endpoint_url : patch.endpoint_url;
  const c = check(deps, row.psp, environment, credentials, endpointUrl);
  if ('field' in c) return { kind: 'invalid', ...c };
  const changed = patch.credentials !== undefined || environment !== row.environment || endpointUrl !== row.endpoint_url;
  let verifiedAt = changed ? null : row.verified_at;
  if ((changed || opts.recheck) && opts.verify) {
    const v = await verify(deps, c, id);
    if (!('at' in v)) return v;
    verifiedAt = v.at;
  }
  const updated = await updateOperatorPspAccount(
    deps.db,
    id,
    { environment: c.environment, label: patch.label ?? row.label, credentialsEnc: sealCredentials(deps.box, c.credentials), endpointUrl: c.endpointUrl, verifiedAt },
    deps.clock.now(),
  );
  if (!updated) return { kind: 'not_found' };
  deps.psps.invalidate(null, id);
  deps.logger.info({ psp_account_id: publicId, changed_settings: changed, recheck: opts.recheck === true }, "operator's collecting account updated");
  return { kind: 'ok', account: viewOf(deps, updated) };
}

/** Deletes an operator's collecting account no offer and no payment of any merchant uses (a payment's captures and refunds need it). */
export async function deleteOperatorAccount(deps: PspAccountDeps, publicId: string): Promise<DeleteOutcome> {
  const id = parsePublicId('psa', publicId);
  if (!id) return { kind: 'not_found' };
  const outcome = await deps.db.transaction(async (tx): Promise<DeleteOutcome> => {
    if (!(await findOperatorPspAccount(tx, id, true))) return { kind: 'not_found' };
    const use = await operatorPspAccountUse(tx, id);
    if (use.offers > 0 || use.payments > 0) return { kind: 'in_use', ...use };
    await deleteOperatorPspAccount(tx, id);
    return { kind: 'deleted' };
  });
  if (outcome.kind === 'deleted') {
    deps.psps.invalidate(null, id);
    deps.logger.info({ psp_account_id: publicId }, "operator's collecting account deleted");
  }
  return outcome;
}
