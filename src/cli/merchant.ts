import { Accounts } from '../accounts/accounts.ts';
import type { Config } from '../config.ts';
import { SecretBox } from '../crypto/secret-box.ts';
import { toPublicId } from '../domain/ids.ts';
import type { Role } from '../domain/roles.ts';
import { setRoleByEmail } from '../staff/team-members.ts';
import { CliError, required, UsageError, withDatabase, type Command } from './command.ts';

const ROLES: readonly Role[] = ['admin', 'support', 'operator'];

/** Runs `fn` on the merchants' accounts of the configured database, with the schema up to date, then closes it. */
function withAccounts<T>(config: Config, fn: (accounts: Accounts) => Promise<T>): Promise<T> {
  return withDatabase(config, (db) => fn(new Accounts(db, new SecretBox(config.masterKey))));
}

/** The operator's commands on merchants: an account with its offers and first key, more offers and keys, a dashboard password. */
export const merchantCommands: Record<string, Command> = {
  'merchant create': async (config, values, out) => {
    const input = { name: required(values, 'name'), email: required(values, 'email'), timeZone: values['time-zone'], country: values.country, language: values.language };
    const m = await withAccounts(config, (a) => a.createMerchant(input));
    return out(
      [
        `account_id  ${m.account_id}`,
        `email       ${m.email}`,
        `time_zone   ${m.time_zone}`,
        `password    ${m.password}`,
        `api_key     ${m.api_key}`,
        `api_secret  ${m.api_secret}`,
        'offers:',
        ...m.offers.map(
          (o) =>
            `  ${o.merchant_uid}  ${o.type} ${o.type === 'DOWN_PAYMENT' ? `${o.deposit_percent}% ${o.max_balance_delay_days}d` : `${o.installments}x ${o.deferred_days}d`}  secret ${o.secret}`,
        ),
        'Keep these now: the password and secrets are not shown again.',
      ].join('\n'),
      m,
    );
  },
  'offer create': async (config, values, out) => {
    const whole = (name: keyof typeof values): number | undefined => {
      const v = values[name];
      if (v === undefined) return undefined;
      if (typeof v !== 'string' || !/^\d{1,6}$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
      return Number(v);
    };
    const choice = {
      type: required(values, 'type'),
      installments: whole('installments'),
      deferredDays: whole('deferred-days'),
      depositPercent: whole('deposit-percent'),
      maxBalanceDelayDays: whole('max-balance-delay-days'),
    };
    const o = await withAccounts(config, (a) => a.createOffer(required(values, 'account'), choice));
    const terms = o.type === 'DOWN_PAYMENT' ? `${o.deposit_percent}% ${o.max_balance_delay_days}d` : `${o.installments}x ${o.deferred_days}d`;
    return out(`${o.merchant_uid}  ${o.type} ${terms}  secret ${o.secret}\nKeep the secret now: it is not shown again.`, o);
  },
  'key create': async (config, values, out) => {
    const account = required(values, 'account');
    const k = await withAccounts(config, (a) => a.createKey(account));
    return out(`api_key     ${k.api_key}\napi_secret  ${k.api_secret}\nKeep the secret now: it is not shown again.`, k);
  },
  'key revoke': async (config, values, out) => {
    const key = required(values, 'key');
    const r = await withAccounts(config, (a) => a.revokeKey(key));
    return out(`revoked ${r.api_key}; its access tokens stop working within 5 s`, { api_key: r.api_key, revoked_at: r.revoked_at.toISOString() });
  },
  'dashboard reset-password': async (config, values, out) => {
    const r = await withAccounts(config, (a) => a.resetDashboardPassword(required(values, 'email')));
    return out([`email     ${r.email}`, `password  ${r.password}`, `${r.revokedSessions} session(s) ended.`, 'Keep the password now: it is not shown again.'].join('\n'), {
      email: r.email,
      password: r.password,
      revoked_sessions: r.revokedSessions,
    });
  },
  // The only way to the operator's role (docs/back-office.md#the-operators-pages): no Team page gives it.
  'dashboard set-role': async (config, values, out) => {
    const email = required(values, 'email');
    const role = required(values, 'role');
    if (!(ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
    const r = await withDatabase(config, (db) => setRoleByEmail(db, email, role as Role, { label: 'cli' }));
    if (!r.ok) throw new CliError(r.reason === 'not_found' ? `no dashboard user ${email}` : `${email} is the account's last admin: make another member admin first`);
    return out(`${r.email} (${toPublicId('acc', r.accountId)}) is now ${role} (was ${r.from}); it applies at their next request`, {
      email: r.email,
      account_id: toPublicId('acc', r.accountId),
      role,
      previous_role: r.from,
    });
  },
};
