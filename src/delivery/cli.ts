import { accountExists } from '../accounts/account-repository.ts';
import { AccountError } from '../accounts/accounts.ts';
import type { Config } from '../config.ts';
import { SecretBox } from '../crypto/secret-box.ts';
import { verifyConfiguredKey } from '../crypto/master-key-check.ts';
import { migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { systemClock } from '../domain/clock.ts';
import { parsePublicId } from '../domain/ids.ts';
import { setWebhookEndpoint, type WebhookSetResult } from './endpoints.ts';
import { AddressPolicy } from '../outbound/addresses.ts';

/**
 * `chipin webhook set --account acc_... --url U [--events a,b] [--rotate] [--json]`: what
 * `PUT /api/backoffice/webhook` does, for the operator. Throws AccountError for an unknown
 * account and WebhookSettingsError for a URL or event list that cannot be used.
 */
export async function setWebhookFromCli(
  config: Config,
  input: { account: string; url: string; events?: string[]; rotate?: boolean },
): Promise<WebhookSetResult & { account_id: string }> {
  const accountId = parsePublicId('acc', input.account);
  const db = await openDatabase(config);
  try {
    await migrate(db);
    await verifyConfiguredKey(db, config);
    if (!accountId || !(await accountExists(db, accountId))) throw new AccountError('unknown_account', `no account ${input.account}`);
    const policy = new AddressPolicy(config.env, config.webhookAllowedHosts ?? []);
    const settings = await setWebhookEndpoint(
      db,
      new SecretBox(config.masterKey),
      accountId,
      { url: input.url, ...(input.events ? { events: input.events } : {}), rotate: input.rotate === true },
      systemClock.now(),
      policy,
    );
    return { account_id: input.account, ...settings };
  } finally {
    await db.close();
  }
}
