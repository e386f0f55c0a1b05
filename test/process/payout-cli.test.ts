/**
 * The operator's payout commands (docs/deployment.md#payouts): `chipin payout run`, `export` and
 * `mark` (and `release`) as a real process on a DATA_DIR, their output, the pain.001 file written (and valid
 * against its schema), a refusal on one line with exit 1; the options refused before anything is
 * opened, in this process. The use cases under them are tested on both databases in test/payouts/.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { SecretBox } from '../../src/crypto/secret-box.ts';
import { openDatabase } from '../../src/db/open.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { parsePublicId } from '../../src/domain/ids.ts';
import { exportedFileFromCli, exportPayoutsFromCli, listPayoutsFromCli, markPayoutFromCli, PayoutCliError, runPayoutsFromCli } from '../../src/cli/payout-commands.ts';
import { releasePayoutHoldFromCli } from '../../src/cli/payout-hold.ts';
import { setBankDetails } from '../../src/use-cases/payouts/payout-bank-details.ts';
import { book, painSchemas, validateXml } from '../payouts/helpers.ts';
import { cleanUp, cliEnv, createMerchant, PROCESS_TEST_MS, runCli, tempDataDir } from './harness.ts';

afterAll(cleanUp);

const OPERATOR = { OPERATOR_NAME: 'Chipin Opérateur SAS', OPERATOR_IBAN: 'FR76 3000 6000 0112 3456 7890 189', OPERATOR_BIC: 'AGRIFRPP' };

describe('chipin payout, refused before the database is opened', () => {
  const config = () => loadConfig({ DATA_DIR: tempDataDir() });
  it('names the bad option, and the missing debtor account', async () => {
    await expect(exportPayoutsFromCli(config(), {})).rejects.toThrow(
      new PayoutCliError('no debtor account: set OPERATOR_NAME, OPERATOR_IBAN and OPERATOR_BIC (docs/deployment.md#payouts)'),
    );
    await expect(exportPayoutsFromCli(config(), { date: '2026-02-30' })).rejects.toThrow(/^--date must be a calendar day YYYY-MM-DD/);
    await expect(runPayoutsFromCli(config(), { date: 'yesterday' })).rejects.toThrow(/^--date must be a calendar day/);
    await expect(markPayoutFromCli(config(), { payout: 'po_x', status: 'sent' })).rejects.toThrow(new PayoutCliError('--payout must be po_<uuid>'));
    await expect(markPayoutFromCli(config(), { payout: `po_${randomUUID()}`, status: 'paid' })).rejects.toThrow(new PayoutCliError('--status must be sent or returned'));
    await expect(exportedFileFromCli(config(), { export: 'po_x' })).rejects.toThrow(new PayoutCliError('--export must be pex_<uuid>'));
    await expect(listPayoutsFromCli(config(), { status: 'paid' })).rejects.toThrow(new PayoutCliError('--status must be one of created, exported, sent, returned'));
    await expect(releasePayoutHoldFromCli(config(), { account: 'po_x' })).rejects.toThrow(new PayoutCliError('--account must be acc_<uuid>'));
  });
});

// The two at once, each on a DATA_DIR of its own: the file lasts as long as the longer chain of children.
describe.concurrent('chipin payout', { timeout: PROCESS_TEST_MS }, () => {
  it(
    'runs the payouts, exports the euro ones as a valid pain.001 file written whole, and marks one sent, refusing it twice on one line',
    async () => {
      const dir = tempDataDir();
      const env = cliEnv(dir);
      const m = await createMerchant(dir);
      const accountId = parsePublicId('acc', m.account_id)!;
      // Owed three days ago, in euros and in pounds, with bank details: what the bookings of purchases would leave.
      const config = loadConfig(env);
      const db = await openDatabase(config);
      try {
        const at = new Date(Date.now() - 3 * 86_400_000);
        await book(db, { accountId, currency: 'EUR', kind: 'validated', cents: 12_345, at });
        await book(db, { accountId, currency: 'GBP', kind: 'validated', cents: 500, at });
        await setBankDetails(
          { db, box: new SecretBox(config.masterKey), clock: systemClock },
          accountId,
          { label: 'test' },
          { holder_name: 'Process Shop', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
        );
      } finally {
        await db.close();
      }

      const run = await runCli(['payout', 'run', '--json'], env);
      expect(run.code, run.stderr).toBe(0);
      const outcomes = JSON.parse(run.stdout) as { currency: string; outcome: string; payout?: { payout_id: string; amount_cents: number } }[];
      expect(outcomes.map((o) => [o.currency, o.outcome, o.payout?.amount_cents])).toEqual([
        ['EUR', 'created', 12_345],
        ['GBP', 'created', 500],
      ]);
      const eur = outcomes[0]!.payout!.payout_id;
      const gbp = outcomes[1]!.payout!.payout_id;
      const file = join(dir, 'payouts.xml');
      const exported = await runCli(['payout', 'export', '--out', file], cliEnv(dir, OPERATOR));
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout).toMatch(/^export pex_[0-9a-f-]{36}: 1 transfer\(s\), 123\.45 EUR, message id CHIPIN\d{8}[0-9A-F]{12}\n/);
      expect(exported.stdout).toContain(`${gbp}  ${m.account_id}`);
      expect(exported.stdout).toContain('not SEPA: pay by another rail');
      expect(exported.stdout.endsWith(`written to ${file}\n`)).toBe(true);
      expect(existsSync(`${file}.partial`)).toBe(false);
      const xml = readFileSync(file, 'utf8');
      validateXml(xml, painSchemas()['pain.001.001.09']);
      expect(xml).toContain('<Nm>Chipin Operateur SAS</Nm>');
      expect(xml).toContain(`<EndToEndId>${eur.slice('po_'.length).replace(/-/g, '')}</EndToEndId>`);

      const sent = await runCli(['payout', 'mark', '--payout', eur, '--status', 'sent'], env);
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.stdout).toContain('sent: the merchant is told (payout.paid)');
      const twice = await runCli(['payout', 'mark', '--payout', eur, '--status', 'sent'], env);
      expect(twice.code).toBe(1);
      expect(twice.stderr).toBe(`chipin: payout ${eur}: the payout is already sent\n`);
    },
    PROCESS_TEST_MS,
  );

  it(
    'releases the payouts a new IBAN holds, once: a second release names the account and exits 1',
    async () => {
      const dir = tempDataDir();
      const env = cliEnv(dir);
      const m = await createMerchant(dir);
      const accountId = parsePublicId('acc', m.account_id)!;
      const config = loadConfig(env);
      // Bank details, then new ones: the change holds the payouts; the operator releases them early, once
      // (docs/money-operations.md#bank-details).
      const db2 = await openDatabase(config);
      try {
        await setBankDetails(
          { db: db2, box: new SecretBox(config.masterKey), clock: systemClock },
          accountId,
          { label: 'test' },
          { holder_name: 'Process Shop', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
        );
        const set = await setBankDetails(
          { db: db2, box: new SecretBox(config.masterKey), clock: systemClock },
          accountId,
          { label: 'test' },
          { holder_name: 'Process Shop', iban: 'FR76 3000 6000 0112 3456 7890 189', bic: 'AGRIFRPP' },
        );
        expect(set).toMatchObject({ kind: 'ok', details: { payouts_held_until: expect.any(String) } });
      } finally {
        await db2.close();
      }
      const released = await runCli(['payout', 'release', '--account', m.account_id], env);
      expect(released.code, released.stderr).toBe(0);
      expect(released.stdout).toMatch(/released: the next run pays them\n$/);
      const again = await runCli(['payout', 'release', '--account', m.account_id], env);
      expect(again.code).toBe(1);
      expect(again.stderr).toBe(`chipin: ${m.account_id}: no payouts held (no bank details change in its cooling-off)\n`);
    },
    PROCESS_TEST_MS,
  );
});
