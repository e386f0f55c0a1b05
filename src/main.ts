import { parseArgs } from 'node:util';
import { AccountError } from './accounts/accounts.ts';
import { CliError, OPTIONS, UsageError, type Command } from './cli/command.ts';
import { merchantCommands } from './cli/merchant.ts';
import { migrateCommand, partitionCommand } from './cli/migrate.ts';
import { operatorAccountCommands } from './cli/operator-account.ts';
import { payoutCommands } from './cli/payout.ts';
import { pspAccountCommands } from './cli/psp-account.ts';
import { ListenError, serve } from './cli/serve.ts';
import { transferCommands } from './cli/transfer.ts';
import { webhookCommands } from './cli/webhook.ts';
import { ConfigError, loadConfig } from './config.ts';
import { MasterKeyMismatchError } from './crypto/master-key-check.ts';
import { DatabaseBusyError } from './db/lock.ts';
import { MigrationOrderError } from './db/migrate.ts';
import { WebhookSettingsError } from './delivery/endpoints.ts';
import { PayoutCliError } from './cli/payout-commands.ts';

const USAGE = `Usage: chipin <command> [options]   (npm run chipin -- <command> ...)

Commands:
  serve                                          run the HTTP service (default)
  migrate                                        apply pending database migrations
  partition                                      PostgreSQL with pg_partman: partition the append-only tables
                                                 a database migrated before the extension was installed left plain
  merchant create --name N --email E [--time-zone Z] [--country CC] [--language de|en|es|fr|it|nl] [--json]
                                                 create a merchant account with its offers and first API key;
                                                 Z: the IANA zone its times are shown in (default Europe/Paris)
  key create --account acc_... [--json]          create another API key for an account
  key revoke --key key_...                       revoke an API key (its tokens stop within 5 s)
  dashboard reset-password --email E [--json]    give a dashboard user a new random password (printed once) and end their sessions
  dashboard set-role --email E --role admin|support|operator [--json]
                                                 set a dashboard user's role (operator: the operator's payout files pages)
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
  payout release --account acc_... [--json]      pay a merchant held after its IBAN changed at the next run
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

/** Every command by its words (`merchant create`), each family's in a file of `cli/` named after it. */
const COMMANDS = new Map<string, Command>(
  Object.entries({
    serve: (config) => serve(config),
    migrate: (config) => migrateCommand(config),
    partition: (config) => partitionCommand(config),
    ...merchantCommands,
    ...webhookCommands,
    ...pspAccountCommands,
    ...payoutCommands,
    ...operatorAccountCommands,
    ...transferCommands,
  } satisfies Record<string, Command>),
);

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  const command = positionals.join(' ') || 'serve';
  if (values.help || command === 'help') {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const handler = COMMANDS.get(command);
  if (!handler) throw new UsageError(`unknown command "${command}"`);

  const config = loadConfig(process.env);
  const out = (human: string, data: unknown): void => {
    process.stdout.write((values.json ? JSON.stringify(data, null, 2) : human) + '\n');
  };
  return handler(config, values, out);
}

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
