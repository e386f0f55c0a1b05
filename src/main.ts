import { parseArgs } from 'node:util';
import { AccountError } from './accounts/accounts.ts';
import { createApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { DatabaseBusyError } from './db/lock.ts';
import { migrate } from './db/migrate.ts';
import { openDatabase } from './db/open.ts';
import { Accounts } from './accounts/accounts.ts';
import { SecretBox } from './crypto/secret-box.ts';
import { demoBanner, ensureDemoMerchant } from './sandbox/demo-merchant.ts';
import { setWebhookFromCli } from './delivery/cli.ts';
import { WebhookSettingsError } from './delivery/endpoints.ts';

const USAGE = `Usage: chipin <command> [options]   (npm run chipin -- <command> ...)

Commands:
  serve                                          run the HTTP service (default)
  migrate                                        apply pending database migrations
  merchant create --name N --email E [--json]    create a merchant account with its offers and first API key
  key create --account acc_... [--json]          create another API key for an account
  key revoke --key key_...                       revoke an API key (its tokens stop within 5 s)
  webhook set --account acc_... --url U [--events a,b] [--json]
                                                 set the account's webhook URL (new token and signing secret)

Configuration comes from the environment; see README.md.`;

class UsageError extends Error {}
class ListenError extends Error {}

async function serve(config: Config): Promise<void> {
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
  if (demo) process.stdout.write(demoBanner(config, demo) + '\n');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    app.close().then(
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
      account: { type: 'string' },
      key: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const command = positionals.join(' ') || 'serve';
  if (values.help || command === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const known = ['serve', 'migrate', 'merchant create', 'key create', 'key revoke', 'webhook set'];
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
        process.stdout.write(applied.length ? `applied migrations ${applied.join(', ')}\n` : 'database schema is up to date\n');
      } finally {
        await db.close();
      }
      return;
    }
    case 'merchant create': {
      const input = { name: required(values, 'name'), email: required(values, 'email') };
      const m = await withAccounts(config, (a) => a.createMerchant(input));
      return out(
        [
          `account_id  ${m.account_id}`,
          `email       ${m.email}`,
          `password    ${m.password}`,
          `api_key     ${m.api_key}`,
          `api_secret  ${m.api_secret}`,
          'offers:',
          ...m.offers.map((o) => `  ${o.merchant_uid}  ${o.type} ${o.installments}x ${o.deferred_days}d  secret ${o.secret}`),
          'Keep these now: the password and secrets are not shown again.',
        ].join('\n'),
        m,
      );
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
    case 'webhook set': {
      const events = typeof values.events === 'string' ? values.events.split(',').map((e) => e.trim()).filter(Boolean) : undefined;
      const w = await setWebhookFromCli(config, { account: required(values, 'account'), url: required(values, 'url'), ...(events ? { events } : {}) });
      return out(
        [`url     ${w.url}`, `events  ${w.events.join(', ')}`, `token   ${w.token}`, `secret  ${w.secret}`, 'The previous token and secret no longer apply.'].join('\n'),
        w,
      );
    }
  }
}

run(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError || err instanceof DatabaseBusyError || err instanceof AccountError || err instanceof WebhookSettingsError) {
    process.stderr.write(err.message.split('\n').map((line) => `chipin: ${line}\n`).join(''));
  } else if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`chipin: ${(err as Error).message}\n\n${USAGE}\n`);
  } else {
    process.stderr.write(`chipin: unexpected error: ${(err as Error)?.stack ?? String(err)}\n`);
  }
  process.exit(1);
});
