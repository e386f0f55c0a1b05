import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { expectOneLine } from './cli-template.ts';
import { cleanUp, cliEnv, PROCESS_TEST_MS, runCli, tempDataDir } from './harness.ts';

/**
 * The transfer-mode commands as a process (docs/money-operations.md#payment-by-transfer): their
 * refusals on one line and their listings. On a copy of the run's migrated database
 * (`tempDataDir`); the use cases under them are tested on both databases in test/http/transfer-mode.test.ts.
 * Apart from cli.test.ts, whose chains of children made it one file over the suite's budget
 * (docs/testing.md#the-budget).
 */
afterAll(cleanUp);

describe.concurrent('transfer commands', { timeout: PROCESS_TEST_MS }, () => {
  it(
    'transfer received names what is wrong in one line (no such purchase, a malformed amount), and transfer refunds lists nothing to send',
    async () => {
      const dataDir = tempDataDir();
      const unknown = `pur_${randomUUID()}`;
      const missing = await runCli(['transfer', 'received', '--purchase', unknown, '--amount-cents', '12990'], cliEnv(dataDir));
      expect(missing.code).not.toBe(0);
      expect(missing.stdout).toBe('');
      expectOneLine(missing.stderr);
      expect(missing.stderr).toBe(`chipin: no purchase ${unknown}\n`);

      const decimal = await runCli(['transfer', 'received', '--purchase', unknown, '--amount-cents', '129.90'], cliEnv(dataDir));
      expect(decimal.code).not.toBe(0);
      expect(decimal.stderr).toMatch(/^chipin: --amount-cents must be a whole number of cents, e\.g\. 12990 for 129\.90\n/);

      const list = await runCli(['transfer', 'refunds', '--json'], cliEnv(dataDir));
      expect(list.code, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout)).toEqual([]);
    },
    PROCESS_TEST_MS,
  );
});
