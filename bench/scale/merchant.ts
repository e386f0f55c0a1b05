/**
 * The merchants of bench:scale, made by the service's own CLI: the big merchant (made once per
 * database, fresh credentials every run) and the merchant the create row creates for.
 */
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runTs } from '../children.ts';
import { parsePublicId, toPublicId } from '../../src/domain/ids.ts';
import { readMeta, recreateIndexes } from './seed.ts';
import { BIG_EMAIL, settings } from './settings.ts';
import { chipinEnv, type Target } from './target.ts';

export interface Merchant {
  accountId: string;
  email: string;
  apiKey: string;
  apiSecret: string;
  password: string;
}

/**
 * The merchant the create row creates for: a new, empty one per run. Its purchases would
 * otherwise pile up at the top of the big merchant's list, newer than everything seeded, run after
 * run on a kept database (4,800 after six measures of a level, which the state filter's page read
 * past: 0.47 of its 0.97 ms at 10 M), so that each level's list rows measured the benchmark's
 * history instead of the seeded data. A create's cost does not depend on its merchant's other
 * purchases: every index it writes is shared by all merchants.
 */
export function makeCreator(target: Target): Promise<Merchant> {
  return createMerchant(target, 'Scale Create Shop', `create-${Date.now().toString(36)}@scale-bench.example`);
}

/** A new merchant, made by the service's own `chipin merchant create` (API key, dashboard password, offers). */
async function createMerchant(target: Target, name: string, email: string): Promise<Merchant> {
  const out = JSON.parse(await runTs('src/main.ts', ['merchant', 'create', '--name', name, '--email', email, '--json'], chipinEnv(target))) as {
    account_id: string;
    email: string;
    password: string;
    api_key: string;
    api_secret: string;
  };
  const accountId = parsePublicId('acc', out.account_id);
  if (!accountId) throw new Error('merchant create: no account id in its output');
  return { accountId, email: out.email, apiKey: out.api_key, apiSecret: out.api_secret, password: out.password };
}

/** Migrates (the service's `migrate`), loads the seed helpers, and makes or finds the big merchant with fresh credentials. */
export async function prepare(target: Target, db: pg.Pool): Promise<Merchant> {
  const env = chipinEnv(target);
  await runTs('src/main.ts', ['migrate'], env, 600_000);
  await db.query(readFileSync(join(ROOT, 'bench/scale-seed.sql'), 'utf8'));
  let meta = await readMeta(db);
  let merchant: Merchant;
  if (!meta) {
    merchant = await createMerchant(target, 'Scale Big Shop', BIG_EMAIL);
    const t0 = performance.now();
    await db.query('CALL bench_scale_setup($1, $2, $3, $4, $5)', [merchant.accountId, merchant.email, settings.accounts, settings.bigSharePct, settings.spanDays]);
    process.stdout.write(`  ${settings.accounts - 1} more accounts created in SQL in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    meta = (await readMeta(db))!;
  } else {
    const accountId = (await db.query<{ id: string }>('SELECT id FROM bench_scale_accounts WHERE idx = 0')).rows[0]!.id;
    const key = JSON.parse(await runTs('src/main.ts', ['key', 'create', '--account', toPublicId('acc', accountId), '--json'], env)) as { api_key: string; api_secret: string };
    const reset = JSON.parse(await runTs('src/main.ts', ['dashboard', 'reset-password', '--email', meta.big_email, '--json'], env)) as { password: string };
    merchant = { accountId, email: meta.big_email, apiKey: key.api_key, apiSecret: key.api_secret, password: reset.password };
    if (meta.accounts !== settings.accounts || meta.big_share_pct !== settings.bigSharePct || meta.span_days !== settings.spanDays) {
      process.stdout.write(
        `  note: this database was seeded with ${meta.accounts} accounts, ${meta.big_share_pct} % at the big one, over ${meta.span_days} days; those values apply\n`,
      );
    }
    process.stdout.write(`  the database holds ${Number(meta.seeded).toLocaleString('en')} seeded purchases\n`);
  }
  if (meta.dropped_indexes) {
    process.stdout.write(`  an earlier seed was interrupted without its ${meta.dropped_indexes.length} secondary indexes: recreating them\n`);
    const c = await db.connect();
    try {
      await recreateIndexes(c, meta.dropped_indexes);
    } finally {
      c.release();
    }
  }
  return merchant;
}
