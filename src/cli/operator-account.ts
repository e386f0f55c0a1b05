import { toPublicId } from '../domain/ids.ts';
import { setOfferMode } from '../use-cases/merchant-setup/offer-mode.ts';
import { createOperatorAccount, deleteOperatorAccount, listOperatorAccounts, updateOperatorAccount } from '../use-cases/merchant-setup/operator-accounts.ts';
import { CliError, required, UsageError, type Command, type Values } from './command.ts';
import { credentialsFile, pspAccountOutcome, showPspAccount, withPspDeps } from './psp-account.ts';

/** A whole number option (`--commission-bps 150`); undefined when not given. */
function wholeOption(values: Values, name: keyof Values): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d{1,15}$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
}

/** `offer set-mode`: who collects an offer's payments, the operator (transfer, with its commission) or the merchant's PSP account (back). */
const setMode: Command = (config, values, out) =>
  withPspDeps(config, async (deps) => {
    const mode = required(values, 'mode');
    if (mode !== 'transfer' && mode !== 'back') throw new UsageError('--mode must be transfer or back');
    const named = mode === 'transfer' ? 'operator-account' : 'psp-account';
    const other = mode === 'transfer' ? 'psp-account' : 'operator-account';
    if (values[other] !== undefined) throw new UsageError(`--${other} does not apply to --mode ${mode}: use --${named}`);
    const account = values[named];
    if ((typeof account === 'string') === (values.sandbox === true)) throw new UsageError(`--mode ${mode} needs either --${named} psa_... or --sandbox`);
    const r = await setOfferMode(deps, required(values, 'offer'), {
      mode,
      pspAccountId: typeof account === 'string' ? account : null,
      ...(values['commission-bps'] !== undefined ? { commissionBps: wholeOption(values, 'commission-bps')! } : {}),
      ...(values['commission-fixed-cents'] !== undefined ? { commissionFixedCents: wholeOption(values, 'commission-fixed-cents')! } : {}),
    });
    if (r.kind === 'not_found')
      throw new CliError(
        r.what === 'offer' ? `no offer ${String(values.offer)}` : `no ${mode === 'transfer' ? 'collecting account' : "PSP account of the offer's merchant"} ${String(account)}`,
      );
    if (r.kind === 'invalid') throw new CliError(`--${r.field}: ${r.message}`);
    const o = r.offer;
    const data = {
      merchant_uid: toPublicId('mer', o.id),
      account_id: toPublicId('acc', r.accountId),
      payment_mode: o.paymentMode,
      psp: o.psp,
      psp_account_id: o.pspAccountId === null ? null : toPublicId('psa', o.pspAccountId),
      commission_bps: o.commissionBps,
      commission_fixed_cents: o.commissionFixedCents,
    };
    const where = data.psp_account_id ?? 'the built-in sandbox PSP';
    const commission = o.paymentMode === 'transfer' ? `, commission ${o.commissionBps} bps + ${o.commissionFixedCents}` : '';
    return out(`${data.merchant_uid} now pays in ${o.paymentMode} mode through ${where} (${o.psp})${commission}`, data);
  });

/**
 * The operator's transfer-mode commands (docs/money-operations.md#transfer-mode): its collecting
 * accounts, and the payment mode of a merchant's offer. No merchant's back office or API reaches them.
 */
export const operatorAccountCommands: Record<string, Command> = {
  'operator-account create': (config, values, out) =>
    withPspDeps(config, async (deps) => {
      const verify = values['no-verify'] !== true;
      const input = {
        psp: required(values, 'psp'),
        environment: required(values, 'environment'),
        label: required(values, 'label'),
        credentials: credentialsFile(values),
        endpoint_url: typeof values['endpoint-url'] === 'string' ? values['endpoint-url'] : null,
      };
      return pspAccountOutcome(await createOperatorAccount(deps, input, { verify }), out);
    }),
  'operator-account list': (config, _values, out) =>
    withPspDeps(config, async (deps) => {
      const list = await listOperatorAccounts(deps);
      return out(list.length ? list.map(showPspAccount).join('\n') : 'no collecting account', list);
    }),
  'operator-account update': (config, values, out) =>
    withPspDeps(config, async (deps) => {
      const verify = values['no-verify'] !== true;
      const endpoint = values['endpoint-url'];
      const patch = {
        ...(typeof values.label === 'string' ? { label: values.label } : {}),
        ...(typeof values.environment === 'string' ? { environment: values.environment } : {}),
        ...(values['credentials-file'] !== undefined ? { credentials: credentialsFile(values) } : {}),
        ...(typeof endpoint === 'string' ? { endpoint_url: endpoint === 'none' ? null : endpoint } : {}),
      };
      const r = await updateOperatorAccount(deps, required(values, 'id'), patch, { verify });
      if (r.kind === 'not_found') throw new CliError(`no collecting account ${String(values.id)}`);
      return pspAccountOutcome(r, out);
    }),
  'operator-account verify': (config, values, out) =>
    withPspDeps(config, async (deps) => {
      const r = await updateOperatorAccount(deps, required(values, 'id'), {}, { verify: true, recheck: true });
      if (r.kind === 'not_found') throw new CliError(`no collecting account ${String(values.id)}`);
      return pspAccountOutcome(r, out);
    }),
  'operator-account delete': (config, values, out) =>
    withPspDeps(config, async (deps) => {
      const id = required(values, 'id');
      const r = await deleteOperatorAccount(deps, id);
      if (r.kind === 'not_found') throw new CliError(`no collecting account ${id}`);
      if (r.kind === 'in_use') throw new CliError(`psp_account_in_use: used by ${r.offers} offer(s) and ${r.payments} payment(s)`);
      return out(`deleted ${id}`, { id, deleted: true });
    }),
  'offer set-mode': setMode,
};
