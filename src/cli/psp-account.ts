import { readFileSync } from 'node:fs';
import { OfferCache } from '../accounts/offers.ts';
import type { Config } from '../config.ts';
import { SecretBox } from '../crypto/secret-box.ts';
import { systemClock } from '../domain/clock.ts';
import { parsePublicId } from '../domain/ids.ts';
import { AddressPolicy } from '../outbound/addresses.ts';
import { findPaymentPspAccount, toStored } from '../psp-accounts/psp-account-repository.ts';
import { createPspRegistry } from '../psp/registry.ts';
import { editOffer, type EditOfferDeps } from '../use-cases/merchant-setup/edit-offer.ts';
import { createPspAccount, deletePspAccount, listPspAccounts, type PspAccountOutcome, type PspAccountView } from '../use-cases/merchant-setup/psp-accounts.ts';
import { CliError, required, UsageError, withDatabase, type Command, type Out, type Values } from './command.ts';

/** Runs `fn` with the PSP-account use cases' dependencies, on the configured database with the schema up to date, then closes it. */
export function withPspDeps<T>(config: Config, fn: (deps: EditOfferDeps) => Promise<T>): Promise<T> {
  return withDatabase(config, (db) => {
    const box = new SecretBox(config.masterKey);
    const psps = createPspRegistry({
      db,
      clock: systemClock,
      publicUrl: config.publicUrl,
      masterKey: config.masterKey,
      production: config.env === 'production',
      endpointAllowlist: config.pspEndpointAllowlist ?? [],
      loadAccount: async (account, id) => {
        const row = await findPaymentPspAccount(db, account, id);
        return row && toStored(box, row);
      },
    });
    const quiet = { info: () => {}, warn: () => {} };
    return fn({
      db,
      box,
      clock: systemClock,
      psps,
      offers: new OfferCache(db),
      deployment: config.env,
      logger: quiet,
      policy: new AddressPolicy(config.env, config.webhookAllowedHosts ?? []),
    });
  });
}

/** A PSP account as the CLI prints it: its secrets as their last 4 characters. */
export const showPspAccount = (a: PspAccountView) =>
  `${a.id}  ${a.psp} ${a.environment}  "${a.label}"  ${a.verified_at ? `verified ${a.verified_at}` : 'not verified'}  ${Object.entries(a.credentials)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`;

/** The JSON object of credential fields in `--credentials-file` (a path, or - for stdin). */
export function credentialsFile(values: Values): Record<string, unknown> {
  const file = required(values, 'credentials-file');
  let credentials: unknown;
  try {
    credentials = JSON.parse(readFileSync(file === '-' ? 0 : file, 'utf8'));
  } catch {
    throw new UsageError("--credentials-file must hold a JSON object of the connector's credential fields");
  }
  if (typeof credentials !== 'object' || credentials === null || Array.isArray(credentials)) throw new UsageError('--credentials-file must hold a JSON object');
  return credentials as Record<string, unknown>;
}

/** A saved or refused PSP account, printed; a refusal is one line. */
export function pspAccountOutcome(r: PspAccountOutcome, out: Out): void {
  switch (r.kind) {
    case 'ok':
      return out(showPspAccount(r.account), r.account);
    case 'invalid':
      throw new CliError(`field ${r.field} ${r.message}`);
    case 'rejected':
      throw new CliError(`psp_credentials_rejected: ${r.message}`);
    case 'unreachable':
      throw new CliError('psp_unreachable: the PSP could not be reached to check the credentials; nothing was saved (retry, or --no-verify)');
    case 'not_found':
      throw new CliError('not found');
  }
}

/** Runs `fn` for the account of `--account`, checked before the database is opened, with the PSP-account use cases' dependencies. */
function onAccount(config: Config, values: Values, fn: (deps: EditOfferDeps, accountId: string) => Promise<void>): Promise<void> {
  const accountId = parsePublicId('acc', required(values, 'account'));
  if (!accountId) throw new UsageError('--account must be acc_<uuid>');
  return withPspDeps(config, (deps) => fn(deps, accountId));
}

/** The back-mode commands (docs/psp-connectors.md#psp-accounts): the same use cases as the back office. */
export const pspAccountCommands: Record<string, Command> = {
  'psp-account create': async (config, values, out) =>
    onAccount(config, values, async (deps, accountId) => {
      const input = {
        psp: required(values, 'psp'),
        environment: required(values, 'environment'),
        label: required(values, 'label'),
        credentials: credentialsFile(values),
        endpoint_url: typeof values['endpoint-url'] === 'string' ? values['endpoint-url'] : null,
      };
      return pspAccountOutcome(await createPspAccount(deps, accountId, input, { verify: values['no-verify'] !== true }), out);
    }),
  'psp-account list': async (config, values, out) =>
    onAccount(config, values, async (deps, accountId) => {
      const list = await listPspAccounts(deps, accountId);
      return out(list.length ? list.map(showPspAccount).join('\n') : 'no PSP account', list);
    }),
  'psp-account delete': async (config, values, out) =>
    onAccount(config, values, async (deps, accountId) => {
      const id = required(values, 'id');
      const r = await deletePspAccount(deps, accountId, id);
      if (r.kind === 'not_found') throw new CliError(`no PSP account ${id} in this account`);
      if (r.kind === 'in_use') throw new CliError(`psp_account_in_use: used by ${r.offers} offer(s) and ${r.payments} payment(s)`);
      return out(`deleted ${id}`, { id, deleted: true });
    }),
  'offer set-psp-account': async (config, values, out) =>
    onAccount(config, values, async (deps, accountId) => {
      const psa = required(values, 'psp-account');
      const r = await editOffer(deps, accountId, { label: 'cli' }, required(values, 'offer'), { psp_account_id: psa === 'none' ? null : psa });
      if (r.kind === 'not_found') throw new CliError(`no such ${r.what} in this account`);
      if (r.kind === 'invalid') throw new CliError(`${r.field}: ${r.message}`);
      return out(`${r.offer.merchant_uid} now pays through ${r.offer.psp_account_id ?? 'the built-in sandbox PSP'} (${r.offer.psp})`, r.offer);
    }),
};
