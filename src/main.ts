import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { AccountError } from './accounts/accounts.ts';
import { createApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { DatabaseBusyError } from './db/lock.ts';
import { migrate, MigrationOrderError, newerMigrations } from './db/migrate.ts';
import { openDatabase } from './db/open.ts';
import { Accounts } from './accounts/accounts.ts';
import { SecretBox } from './crypto/secret-box.ts';
import { MasterKeyMismatchError, verifyConfiguredKey } from './crypto/master-key-check.ts';
import { demoBanner, ensureDemoMerchant } from './sandbox/demo-merchant.ts';
import { setWebhookFromCli } from './delivery/cli.ts';
import { WebhookSettingsError } from './delivery/endpoints.ts';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { OfferCache } from './accounts/offers.ts';
import { parseEitherSpelling, parsePublicId, toPublicId } from './domain/ids.ts';
import { decimalAmount } from './domain/money.ts';
import { systemClock } from './domain/clock.ts';
import { createPspRegistry } from './psp/registry.ts';
import { findPaymentPspAccount, toStored } from './psp-accounts/psp-account-repository.ts';
import { editOffer, type EditOfferDeps } from './use-cases/edit-offer.ts';
import { AddressPolicy } from './outbound/addresses.ts';
import { createPspAccount, deletePspAccount, listPspAccounts, type PspAccountOutcome, type PspAccountView } from './use-cases/psp-accounts.ts';
import { exportedFileFromCli, exportPayoutsFromCli, listPayoutsFromCli, markPayoutFromCli, PayoutCliError, runPayoutsFromCli, type CliAnswer } from './payouts/cli.ts';
import { createOperatorAccount, deleteOperatorAccount, listOperatorAccounts, updateOperatorAccount } from './use-cases/operator-accounts.ts';
import { setOfferMode } from './use-cases/offer-mode.ts';
import { receiveTransfer } from './use-cases/receive-transfer.ts';
import { recordRefundTransferSent, transfersToSend } from './use-cases/transfer-refunds.ts';

const USAGE = `Usage: chipin <command> [options]   (npm run chipin -- <command> ...)

Commands:
  serve                                          run the HTTP service (default)
  migrate                                        apply pending database migrations
  merchant create --name N --email E [--time-zone Z] [--country CC] [--json]
                                                 create a merchant account with its offers and first API key;
                                                 Z: the IANA zone its times are shown in (default Europe/Paris)
  key create --account acc_... [--json]          create another API key for an account
  key revoke --key key_...                       revoke an API key (its tokens stop within 5 s)
  dashboard reset-password --email E [--json]    give a dashboard user a new random password (printed once) and end their sessions
  webhook set --account acc_... --url U [--events a,b] [--rotate] [--json]
                                                 set the account's webhook URL and events (--rotate: new token and signing secret)
  psp-account create --account acc_... --psp P --environment test|live --label L
                     --credentials-file F|- [--endpoint-url U] [--no-verify] [--json]
                                                 add a PSP account (credentials as a JSON object, from a file or stdin)
  psp-account list --account acc_... [--json]    list the account's PSP accounts (secrets as their last 4 characters)
  psp-account delete --account acc_... --id psa_...
                                                 delete a PSP account no offer or payment uses
  offer set-psp-account --account acc_... --offer mer_... --psp-account psa_...|none
                                                 make an offer pay through a PSP account (none: the sandbox PSP)
  offer create --account acc_... --type SHARED|INSTALLMENTS|DEFERRED|DOWN_PAYMENT [--installments N]
               [--deferred-days D] [--deposit-percent P] [--max-balance-delay-days D] [--json]
                                                 add an offer with its type's default terms and a signing secret (printed once)
  payout run [--date D] [--json]                 transfer mode's payouts now: each merchant's day D (default: its yesterday)
  payout export [--date D] [--execution-date E] [--out F] [--json]
                                                 the euro payouts created (of days up to D) as one pain.001 file,
                                                 written to F (default: stdout), and marked exported
  payout file --export pex_... [--out F]         a pain.001 file exported before, again
  payout mark --payout po_... --status sent|returned [--json]
                                                 the bank sent the transfer, or it came back (owed again)
  payout list [--status S] [--json]              the newest payouts of every merchant
  operator-account create --psp P --environment test|live --label L
                     --credentials-file F|- [--endpoint-url U] [--no-verify] [--json]
                                                 add one of the operator's collecting accounts (transfer mode)
  operator-account list [--json]                 list the operator's collecting accounts (secrets as their last 4 characters)
  operator-account update --id psa_... [--label L] [--environment E] [--credentials-file F|-]
                     [--endpoint-url U|none] [--no-verify] [--json]
                                                 change one (the credentials file's fields are set, null removes one)
  operator-account verify --id psa_... [--json]  check a collecting account's saved credentials with its PSP again
  operator-account delete --id psa_...           delete a collecting account no offer or payment uses
  offer set-mode --offer mer_... --mode transfer --operator-account psa_...|--sandbox
                     [--commission-bps N] [--commission-fixed-cents N] [--json]
  offer set-mode --offer mer_... --mode back [--psp-account psa_...|--sandbox] [--json]
                                                 who collects an offer's payments: the operator (transfer, with its
                                                 commission) or the merchant's PSP account (back); audited
  transfer received --purchase pur_... --amount-cents N [--date YYYY-MM-DD] [--json]
                                                 record a shopper's bank transfer received for a transfer-mode
                                                 purchase (from the bank statement): the purchase is paid
  transfer refunds [--json]                      list the refunds by transfer still to send (every merchant's)
  transfer refund-sent --refund ref_... [--json] record a refund by transfer sent

Configuration comes from the environment; see README.md.`;

class UsageError extends Error {}
class ListenError extends Error {}

async function serve(config: Config): Promise<void> {
  // V8 otherwise learns, from pages of query rows all alive at a young-generation collection, to
  // allocate every later row of that shape straight into the old generation: the RSS then grows by
  // tens of MB through a CSV export until a full collection. Set before the service allocates
  // anything of its own (docs/performance.md#the-csv-export).
  setFlagsFromString('--no-allocation-site-pretenuring');
  const app = await createApp(config);
  const { server, logger } = app;
  // Before listening, so that a ready service always has it; printed once the port is ours.
  const demo = await ensureDemoMerchant(config, app.services.accounts);
  try {
    await server.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new ListenError(`cannot listen on ${config.host}:${config.port} (${code}); set PORT or HOST to a free address`);
    }
    throw err;
  }
  if (app.metricsListener && config.metricsListener) {
    const { port, host } = config.metricsListener;
    try {
      await app.metricsListener.listen();
    } catch (err) {
      await app.close();
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
        throw new ListenError(`cannot listen for /metrics on ${host}:${port} (${code}); set METRICS_PORT or METRICS_HOST to a free address`);
      }
      throw err;
    }
    logger.info({ metrics: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics` }, 'metrics listener ready');
  }
  if (demo) process.stdout.write(demoBanner(config, demo) + '\n');

  // The first signal drains (readiness fails while requests are still served, SHUTDOWN_DRAIN_MS),
  // then closes; a second one skips what is left of the drain (docs/deployment.md#draining).
  let stopping = false;
  let skipDrain: (() => void) | undefined;
  const stop = (signal: string) => {
    if (stopping) {
      skipDrain?.();
      return;
    }
    stopping = true;
    const drainMs = config.shutdownDrainMs ?? 0;
    if (drainMs > 0) logger.info({ signal, drainMs }, 'draining: /readyz answers 503 while requests are still served');
    Promise.race([app.drain(), new Promise<void>((resolve) => (skipDrain = resolve))])
      .then(() => {
        logger.info({ signal }, 'shutting down: finishing in-flight requests');
        return app.close();
      })
      .then(
        () => {
          logger.info('database closed, bye');
          process.exit(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'unclean shutdown');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  logger.info({ url: config.publicUrl, env: config.env, database: app.services.db.kind }, 'chipin ready');
}

/** Runs `fn` against the configured database with the schema up to date, then closes it. */
async function withAccounts<T>(config: Config, fn: (accounts: Accounts) => Promise<T>): Promise<T> {
  const db = await openDatabase(config);
  try {
    await migrate(db);
    await verifyConfiguredKey(db, config);
    return await fn(new Accounts(db, new SecretBox(config.masterKey)));
  } finally {
    await db.close();
  }
}

function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      'time-zone': { type: 'string' },
      country: { type: 'string' },
      account: { type: 'string' },
      key: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      psp: { type: 'string' },
      environment: { type: 'string' },
      label: { type: 'string' },
      'credentials-file': { type: 'string' },
      'endpoint-url': { type: 'string' },
      'no-verify': { type: 'boolean', default: false },
      id: { type: 'string' },
      offer: { type: 'string' },
      'psp-account': { type: 'string' },
      type: { type: 'string' },
      installments: { type: 'string' },
      'deferred-days': { type: 'string' },
      'deposit-percent': { type: 'string' },
      'max-balance-delay-days': { type: 'string' },
      date: { type: 'string' },
      'execution-date': { type: 'string' },
      out: { type: 'string' },
      payout: { type: 'string' },
      status: { type: 'string' },
      export: { type: 'string' },
      'operator-account': { type: 'string' },
      sandbox: { type: 'boolean', default: false },
      mode: { type: 'string' },
      'commission-bps': { type: 'string' },
      'commission-fixed-cents': { type: 'string' },
      purchase: { type: 'string' },
      'amount-cents': { type: 'string' },
      refund: { type: 'string' },
      rotate: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const command = positionals.join(' ') || 'serve';
  if (values.help || command === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const known = [
    'serve',
    'migrate',
    'merchant create',
    'key create',
    'key revoke',
    'dashboard reset-password',
    'webhook set',
    'psp-account create',
    'psp-account list',
    'psp-account delete',
    'offer set-psp-account',
    'offer create',
    'payout run',
    'payout export',
    'payout file',
    'payout mark',
    'payout list',
    'operator-account create',
    'operator-account list',
    'operator-account update',
    'operator-account verify',
    'operator-account delete',
    'offer set-mode',
    'transfer received',
    'transfer refunds',
    'transfer refund-sent',
  ];
  if (!known.includes(command)) throw new UsageError(`unknown command "${command}"`);

  const config = loadConfig(process.env);
  const out = (human: string, data: unknown): void => {
    process.stdout.write((values.json ? JSON.stringify(data, null, 2) : human) + '\n');
  };

  switch (command) {
    case 'serve':
      return serve(config);
    case 'migrate': {
      const db = await openDatabase(config);
      try {
        const applied = await migrate(db);
        await verifyConfiguredKey(db, config);
        const newer = await newerMigrations(db);
        // An older build's `chipin migrate` on a newer schema changes nothing and says so.
        if (newer.length > 0) process.stdout.write(`database schema is newer than this build (migrations ${newer.join(', ')}): nothing to apply\n`);
        else process.stdout.write(applied.length ? `applied migrations ${applied.join(', ')}\n` : 'database schema is up to date\n');
      } finally {
        await db.close();
      }
      return;
    }
    case 'merchant create': {
      const input = { name: required(values, 'name'), email: required(values, 'email'), timeZone: values['time-zone'], country: values.country };
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
    }
    case 'offer create': {
      const whole = (name: string): number | undefined => {
        const v = values[name as keyof typeof values];
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
    }
    case 'key create': {
      const account = required(values, 'account');
      const k = await withAccounts(config, (a) => a.createKey(account));
      return out(`api_key     ${k.api_key}\napi_secret  ${k.api_secret}\nKeep the secret now: it is not shown again.`, k);
    }
    case 'key revoke': {
      const key = required(values, 'key');
      const r = await withAccounts(config, (a) => a.revokeKey(key));
      return out(`revoked ${r.api_key}; its access tokens stop working within 5 s`, { api_key: r.api_key, revoked_at: r.revoked_at.toISOString() });
    }
    case 'dashboard reset-password': {
      const r = await withAccounts(config, (a) => a.resetDashboardPassword(required(values, 'email')));
      return out([`email     ${r.email}`, `password  ${r.password}`, `${r.revokedSessions} session(s) ended.`, 'Keep the password now: it is not shown again.'].join('\n'), {
        email: r.email,
        password: r.password,
        revoked_sessions: r.revokedSessions,
      });
    }
    case 'psp-account create':
    case 'psp-account list':
    case 'psp-account delete':
    case 'offer set-psp-account':
      return pspAccountCommand(config, command, values, out);
    case 'payout run':
      return printAnswer(await runPayoutsFromCli(config, { date: values.date }), values, out);
    case 'payout export':
      return printAnswer(await exportPayoutsFromCli(config, { date: values.date, executionDate: values['execution-date'] }), values, out);
    case 'payout file':
      return printAnswer(await exportedFileFromCli(config, { export: values.export }), values, out);
    case 'payout mark':
      return printAnswer(await markPayoutFromCli(config, { payout: values.payout, status: values.status }), values, out);
    case 'payout list':
      return printAnswer(await listPayoutsFromCli(config, { status: values.status }), values, out);
    case 'operator-account create':
    case 'operator-account list':
    case 'operator-account update':
    case 'operator-account verify':
    case 'operator-account delete':
    case 'offer set-mode':
      return operatorCommand(config, command, values, out);
    case 'transfer received':
    case 'transfer refunds':
    case 'transfer refund-sent':
      return transferCommand(config, command, values, out);
    case 'webhook set': {
      const events =
        typeof values.events === 'string'
          ? values.events
              .split(',')
              .map((e) => e.trim())
              .filter(Boolean)
          : undefined;
      const w = await setWebhookFromCli(config, { account: required(values, 'account'), url: required(values, 'url'), ...(events ? { events } : {}), rotate: values.rotate });
      const kept = !w.issued ? ['The token and signing secret are unchanged (--rotate for new ones).'] : [];
      const overlap = w.previousSecretUntil ? [`The previous signing secret also signs until ${w.previousSecretUntil.toISOString()}; the previous token no longer applies.`] : [];
      const json = {
        account_id: w.account_id,
        url: w.url,
        token: w.token,
        secret: w.secret,
        events: w.events,
        new_secret: w.issued,
        ...(w.previousSecretUntil ? { previous_secret_until: w.previousSecretUntil.toISOString() } : {}),
      };
      return out([`url     ${w.url}`, `events  ${w.events.join(', ')}`, `token   ${w.token}`, `secret  ${w.secret}`, ...kept, ...overlap].join('\n'), json);
    }
  }
}

/** Runs `fn` with the PSP-account use cases' dependencies, on the configured database with the schema up to date, then closes it. */
async function withPspDeps<T>(config: Config, fn: (deps: EditOfferDeps) => Promise<T>): Promise<T> {
  const db = await openDatabase(config);
  try {
    await migrate(db);
    await verifyConfiguredKey(db, config);
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
    return await fn({
      db,
      box,
      clock: systemClock,
      psps,
      offers: new OfferCache(db),
      deployment: config.env,
      logger: quiet,
      policy: new AddressPolicy(config.env, config.webhookAllowedHosts ?? []),
    });
  } finally {
    await db.close();
  }
}

/** A PSP account as the CLI prints it: its secrets as their last 4 characters. */
const showPspAccount = (a: PspAccountView) =>
  `${a.id}  ${a.psp} ${a.environment}  "${a.label}"  ${a.verified_at ? `verified ${a.verified_at}` : 'not verified'}  ${Object.entries(a.credentials)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')}`;

/** The JSON object of credential fields in `--credentials-file` (a path, or - for stdin). */
function credentialsFile(values: Record<string, unknown>): Record<string, unknown> {
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
function pspAccountOutcome(r: PspAccountOutcome, out: (human: string, data: unknown) => void): void {
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

/** The back-mode commands (docs/psp-connectors.md#psp-accounts): the same use cases as the back office. */
async function pspAccountCommand(config: Config, command: string, values: Record<string, unknown>, out: (human: string, data: unknown) => void): Promise<void> {
  const accountId = parsePublicId('acc', required(values, 'account'));
  if (!accountId) throw new UsageError('--account must be acc_<uuid>');
  return withPspDeps(config, async (deps) => {
    switch (command) {
      case 'psp-account create': {
        const input = {
          psp: required(values, 'psp'),
          environment: required(values, 'environment'),
          label: required(values, 'label'),
          credentials: credentialsFile(values),
          endpoint_url: typeof values['endpoint-url'] === 'string' ? values['endpoint-url'] : null,
        };
        return pspAccountOutcome(await createPspAccount(deps, accountId, input, { verify: values['no-verify'] !== true }), out);
      }
      case 'psp-account list': {
        const list = await listPspAccounts(deps, accountId);
        return out(list.length ? list.map(showPspAccount).join('\n') : 'no PSP account', list);
      }
      case 'psp-account delete': {
        const id = required(values, 'id');
        const r = await deletePspAccount(deps, accountId, id);
        if (r.kind === 'not_found') throw new CliError(`no PSP account ${id} in this account`);
        if (r.kind === 'in_use') throw new CliError(`psp_account_in_use: used by ${r.offers} offer(s) and ${r.payments} payment(s)`);
        return out(`deleted ${id}`, { id, deleted: true });
      }
      case 'offer set-psp-account': {
        const psa = required(values, 'psp-account');
        const r = await editOffer(deps, accountId, { label: 'cli' }, required(values, 'offer'), { psp_account_id: psa === 'none' ? null : psa });
        if (r.kind === 'not_found') throw new CliError(`no such ${r.what} in this account`);
        if (r.kind === 'invalid') throw new CliError(`${r.field}: ${r.message}`);
        return out(`${r.offer.merchant_uid} now pays through ${r.offer.psp_account_id ?? 'the built-in sandbox PSP'} (${r.offer.psp})`, r.offer);
      }
    }
  });
}

/** A whole number option (`--commission-bps 150`); undefined when not given. */
function wholeOption(values: Record<string, unknown>, name: string): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^\d{1,15}$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
}

/**
 * The operator's transfer-mode commands (docs/money-operations.md#transfer-mode): its collecting
 * accounts, and the payment mode of a merchant's offer. No merchant's back office or API reaches them.
 */
async function operatorCommand(config: Config, command: string, values: Record<string, unknown>, out: (human: string, data: unknown) => void): Promise<void> {
  return withPspDeps(config, async (deps) => {
    const verify = values['no-verify'] !== true;
    switch (command) {
      case 'operator-account create': {
        const input = {
          psp: required(values, 'psp'),
          environment: required(values, 'environment'),
          label: required(values, 'label'),
          credentials: credentialsFile(values),
          endpoint_url: typeof values['endpoint-url'] === 'string' ? values['endpoint-url'] : null,
        };
        return pspAccountOutcome(await createOperatorAccount(deps, input, { verify }), out);
      }
      case 'operator-account list': {
        const list = await listOperatorAccounts(deps);
        return out(list.length ? list.map(showPspAccount).join('\n') : 'no collecting account', list);
      }
      case 'operator-account update': {
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
      }
      case 'operator-account verify': {
        const r = await updateOperatorAccount(deps, required(values, 'id'), {}, { verify: true, recheck: true });
        if (r.kind === 'not_found') throw new CliError(`no collecting account ${String(values.id)}`);
        return pspAccountOutcome(r, out);
      }
      case 'operator-account delete': {
        const id = required(values, 'id');
        const r = await deleteOperatorAccount(deps, id);
        if (r.kind === 'not_found') throw new CliError(`no collecting account ${id}`);
        if (r.kind === 'in_use') throw new CliError(`psp_account_in_use: used by ${r.offers} offer(s) and ${r.payments} payment(s)`);
        return out(`deleted ${id}`, { id, deleted: true });
      }
      case 'offer set-mode': {
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
      }
    }
  });
}

/**
 * A payout command's answer: a pain.001 file goes to `--out` (written beside it, then renamed, so a
 * reader never sees half a file) or, without it, to stdout with the summary on stderr; otherwise
 * the summary (or `--json` data) to stdout.
 */
function printAnswer(answer: CliAnswer, values: Record<string, unknown>, out: (human: string, data: unknown) => void): void {
  if (answer.xml === undefined) return out(answer.human, answer.data);
  const file = typeof values.out === 'string' && values.out !== '' ? values.out : undefined;
  if (!file) {
    process.stdout.write(answer.xml + '\n');
    process.stderr.write(answer.human + '\n');
    return;
  }
  const partial = `${file}.partial`;
  try {
    writeFileSync(partial, answer.xml + '\n', { flag: 'w' });
    renameSync(partial, file);
  } catch (err) {
    rmSync(partial, { force: true });
    const exportId = (answer.data as { exported?: { export_id?: string } | null; export_id?: string }).exported?.export_id ?? (answer.data as { export_id?: string }).export_id;
    throw new CliError(`could not write ${file} (${(err as Error).message}); the file is kept: "chipin payout file --export ${exportId ?? 'pex_…'} --out ${file}"`);
  }
  out(`${answer.human}\nwritten to ${file}`, answer.data);
}

/** The operator's bank transfers of transfer mode (docs/money-operations.md#payment-by-transfer). */
async function transferCommand(config: Config, command: string, values: Record<string, unknown>, out: (human: string, data: unknown) => void): Promise<void> {
  const db = await openDatabase(config);
  try {
    await migrate(db);
    await verifyConfiguredKey(db, config);
    const deps = { db, clock: systemClock };
    const actor = { label: 'cli' };
    switch (command) {
      case 'transfer received': {
        const purchase = required(values, 'purchase');
        const purchaseId = parseEitherSpelling('pur', purchase);
        if (!purchaseId) throw new UsageError('--purchase must be pur_<uuid>');
        const amount = required(values, 'amount-cents');
        if (!/^\d{1,15}$/.test(amount)) throw new UsageError('--amount-cents must be a whole number of cents, e.g. 12990 for 129.90');
        const date = typeof values.date === 'string' ? values.date : undefined;
        const r = await receiveTransfer(deps, { purchaseId, amountCents: Number(amount), ...(date === undefined ? {} : { valueDate: date }), actor });
        switch (r.kind) {
          case 'recorded': {
            const p = r.purchase;
            const uid = toPublicId('pur', p.purchaseId);
            const data = {
              purchase_uid: uid,
              account_id: toPublicId('acc', p.accountId),
              amount_cents: p.amountCents,
              currency: p.currency,
              value_date: p.valueDate,
              state: p.state,
              already_recorded: r.already,
            };
            return out(
              r.already
                ? `${uid}: this transfer was already recorded on ${p.valueDate}; nothing changed`
                : `${uid}: ${decimalAmount(p.amountCents, p.currency)} ${p.currency} received on ${p.valueDate}; the purchase is paid (${p.state})`,
              data,
            );
          }
          case 'not_found':
            throw new CliError(`no purchase ${purchase}`);
          case 'not_transfer_mode':
            throw new CliError(`${purchase} was not created in transfer mode: its money is not the operator's to collect; send the transfer back`);
          case 'wrong_amount':
          case 'not_payable':
          case 'invalid_date':
          case 'in_progress':
            throw new CliError(`${purchase}: ${r.message}`);
        }
        return;
      }
      case 'transfer refunds': {
        const list = await transfersToSend(deps);
        const rows = list.map((t) => ({
          refund_id: toPublicId('ref', t.refundId),
          purchase_uid: toPublicId('pur', t.purchaseId),
          reference: t.reference,
          merchant: t.merchantName,
          account_id: toPublicId('acc', t.accountId),
          amount_cents: t.amountCents,
          currency: t.currency,
          shopper: t.shopperName === null ? t.shopperEmail : `${t.shopperName} <${t.shopperEmail}>`,
          received_on: t.receivedOn,
          booked_at: t.bookedAt.toISOString(),
        }));
        const human = rows.map(
          (r) =>
            `${r.refund_id}  ${decimalAmount(r.amount_cents, r.currency)} ${r.currency}  to ${r.shopper}  for ${r.purchase_uid}${r.reference ? ` (${r.reference})` : ''} of ${r.merchant}; ` +
            `their transfer arrived on ${r.received_on ?? '?'}; booked ${r.booked_at}`,
        );
        return out(rows.length ? human.join('\n') : 'no refund by transfer to send', rows);
      }
      case 'transfer refund-sent': {
        const refund = required(values, 'refund');
        const refundId = parsePublicId('ref', refund);
        if (!refundId) throw new UsageError('--refund must be ref_<uuid>');
        const r = await recordRefundTransferSent(deps, { refundId, actor });
        if (r.kind === 'not_found') throw new CliError(`no refund by transfer ${refund}`);
        const sentAt = r.transfer.sentAt?.toISOString() ?? '';
        return out(r.kind === 'sent' ? `${refund} recorded sent` : `${refund} was already recorded sent on ${sentAt}`, {
          refund_id: refund,
          sent_at: sentAt,
          already_sent: r.kind === 'already_sent',
        });
      }
    }
  } finally {
    await db.close();
  }
}

/** A refusal of a CLI command, printed as one line. */
class CliError extends Error {}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (
    err instanceof CliError ||
    err instanceof ListenError ||
    err instanceof PayoutCliError ||
    err instanceof ConfigError ||
    err instanceof MasterKeyMismatchError ||
    err instanceof DatabaseBusyError ||
    err instanceof MigrationOrderError ||
    err instanceof AccountError ||
    err instanceof WebhookSettingsError
  ) {
    process.stderr.write(
      err.message
        .split('\n')
        .map((line) => `chipin: ${line}\n`)
        .join(''),
    );
  } else if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`chipin: ${(err as Error).message}\n\n${USAGE}\n`);
  } else {
    process.stderr.write(`chipin: unexpected error: ${(err as Error)?.stack ?? String(err)}\n`);
  }
  process.exit(1);
});
