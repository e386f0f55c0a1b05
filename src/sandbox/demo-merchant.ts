import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Accounts, CreatedMerchant } from '../accounts/accounts.ts';
import type { Config } from '../config.ts';

const DEMO_FILE = 'demo-merchant.json';

/**
 * Sandbox first run on an empty embedded database: a demo merchant exists at once, so a developer
 * can call the API a minute after `npm start`. Its credentials go to DATA_DIR/demo-merchant.json
 * (owner-only) and are returned for printing; they are never logged.
 */
export async function ensureDemoMerchant(config: Config, accounts: Accounts): Promise<CreatedMerchant | undefined> {
  if (config.env !== 'sandbox' || config.databaseUrl !== undefined) return undefined;
  if ((await accounts.count()) > 0) return undefined;
  const demo = await accounts.createMerchant({ name: 'Demo Shop', email: 'demo@chipin.test' });
  writeFileSync(join(config.dataDir, DEMO_FILE), JSON.stringify(demo, null, 2) + '\n', { mode: 0o600 });
  return demo;
}

/**
 * What a later start of the sandbox on the same embedded database shows instead of the banner:
 * where the demo merchant's credentials are (never the credentials themselves). Undefined when
 * there is no such file (production, PostgreSQL, a database whose first merchant came otherwise).
 */
export function demoReminder(config: Config): string | undefined {
  if (config.env !== 'sandbox' || config.databaseUrl !== undefined) return undefined;
  const file = join(config.dataDir, DEMO_FILE);
  if (!existsSync(file)) return undefined;
  return `Sandbox demo merchant: its API key and secret, dashboard login and offers are in ${file} (printed on the first start only).`;
}

/** What the console shows on first run: credentials and a curl line ready to paste. */
export function demoBanner(config: Config, demo: CreatedMerchant): string {
  const shared = demo.offers.find((o) => o.type === 'SHARED');
  return [
    '',
    'Sandbox demo merchant created (also saved to ' + join(config.dataDir, DEMO_FILE) + '):',
    `  account_id   ${demo.account_id}`,
    `  dashboard    ${demo.email} / ${demo.password}  (back office: ${config.publicUrl}/dashboard)`,
    `  api_key      ${demo.api_key}`,
    `  api_secret   ${demo.api_secret}`,
    `  merchant_uid ${shared?.merchant_uid ?? '-'} (SHARED); all offers are in the file`,
    '',
    'Get an access token:',
    `  curl -s -u '${demo.api_key}:${demo.api_secret}' -d grant_type=client_credentials ${config.publicUrl}/api/token`,
    `API docs: ${config.publicUrl}/docs`,
    '',
  ].join('\n');
}
