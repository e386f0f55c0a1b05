/**
 * The layering rules of docs/architecture.md ("Layers") are checked by `npm run lint`:
 * dependency-cruiser for imports (.dependency-cruiser.mjs) and ESLint for SQL outside repositories
 * (eslint.config.js). This test runs both checkers through their APIs: the real tree passes, and a deliberate violation of each rule is reported
 * under that rule's name, so a rule that silently stopped matching (a path pattern gone wrong after
 * a move) fails here. The same lint runs knip (knip.jsonc, docs/dependencies.md): a deliberately
 * unused export fails it.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { cruise, type IConfiguration, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, it } from 'vitest';
import { FULL_RUN } from '../helpers/full-run.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(join(ROOT, file)).href)) as T;

const config = (await load<{ default: IConfiguration }>('.dependency-cruiser.mjs')).default;

/** Runs dependency-cruiser with our rules on `dirs` of `baseDir`: every violation. */
async function cruiseLayers(baseDir: string, dirs: string[], tsConfig?: string): Promise<IViolation[]> {
  const { tsConfig: _cliOnly, ...options } = config.options!;
  const result = await cruise(
    dirs,
    { ...options, baseDir, validate: true, ruleSet: { forbidden: config.forbidden } },
    {},
    tsConfig ? { tsConfig: extractTSConfig(join(baseDir, tsConfig)) } : {},
  );
  return (result.output as ICruiseResult).summary.violations;
}

const errors = (violations: IViolation[]) => violations.filter((v) => v.rule.severity === 'error').map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);

describe('imports follow the layers (dependency-cruiser)', () => {
  // The tree itself is what `npm run lint` checks, a step of .ci/run: here in the full run only.
  it.runIf(FULL_RUN)('the tree has no violation', async () => {
    expect(errors(await cruiseLayers(ROOT, ['src'], 'tsconfig.json'))).toEqual([]);
  });

  describe('a deliberate violation is reported under its rule', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chipin-layering-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    };
    write('src/http/errors.ts', 'export class HttpError extends Error {}\n');
    write('src/pages/page.ts', 'export const page = 1;\n');
    write('src/use-cases/pay.ts', 'export const pay = 1;\n');
    write('src/domain/money.ts', "import type { HttpError } from '../http/errors.ts';\nexport type M = HttpError;\n");
    write('src/use-cases/refund.ts', "import { HttpError } from '../http/errors.ts';\nexport const e = new HttpError();\n");
    write('src/psp/connector.ts', "import { page } from '../pages/page.ts';\nexport const c = page;\n");
    write('src/payments/refund-repository.ts', "import { pay } from '../use-cases/pay.ts';\nexport const r = pay;\n");
    write('src/db/database.ts', "import { pay } from '../use-cases/pay.ts';\nexport const d = pay;\n");
    write('src/jobs/a.ts', "import { b } from './b.ts';\nexport const a = () => b;\n");
    write('src/jobs/b.ts', "import { a } from './a.ts';\nexport const b = () => a;\n");
    write('src/purchases/purchase-repository.ts', 'export const findPurchase = 1;\n');
    write('src/http/routes/merchant-v1/purchases.ts', "import { findPurchase } from '../../../purchases/purchase-repository.ts';\nexport const r = findPurchase;\n");
    write('src/http/backoffice/api/purchases.ts', "import type { findPurchase } from '../../../purchases/purchase-repository.ts';\nexport type R = typeof findPurchase;\n");
    // Two folders importing each other through different files: no module cycle, a folder one.
    write('src/payouts/export.ts', "import { run } from '../use-cases/run.ts';\nexport const e = run;\n");
    write('src/use-cases/run.ts', 'export const run = 1;\n');
    write('src/use-cases/list.ts', "import { rows } from '../payouts/rows.ts';\nexport const l = rows;\n");
    write('src/payouts/rows.ts', 'export const rows = 1;\n');
    // A use case records a PSP answer itself.
    write('src/money/payment-record-repository.ts', 'export const recordResult = 1;\n');
    write('src/use-cases/refunds/refund-purchase.ts', "import { recordResult } from '../../money/payment-record-repository.ts';\nexport const r = recordResult;\n");
    // A capability folder calls one its map does not name (payouts/ calls nothing).
    write('src/use-cases/checkout/pay-as-leader.ts', 'export const payAsLeader = 1;\n');
    write('src/use-cases/payouts/payout-list.ts', "import { payAsLeader } from '../checkout/pay-as-leader.ts';\nexport const l = payAsLeader;\n");
    write('src/money/movement.ts', "import { recordResult } from './payment-record-repository.ts';\nexport const m = recordResult;\n");
    const found = cruiseLayers(dir, ['src']).then(errors);

    it.each([
      ['a domain file importing http/ (a type only)', 'domain-imports-only-domain: src/domain/money.ts → src/http/errors.ts'],
      ['a domain file importing http/, by the HTTP rule too', 'no-http-below-routes: src/domain/money.ts → src/http/errors.ts'],
      ['a use case importing http/', 'no-http-below-routes: src/use-cases/refund.ts → src/http/errors.ts'],
      ['a connector importing pages/', 'psp-and-messaging-never-import-pages: src/psp/connector.ts → src/pages/page.ts'],
      ['a repository importing a use case', 'repositories-import-nothing-above: src/payments/refund-repository.ts → src/use-cases/pay.ts'],
      ['db/ importing a use case', 'db-imports-only-db: src/db/database.ts → src/use-cases/pay.ts'],
      ['two files importing each other', 'no-circular: src/jobs/a.ts → src/jobs/b.ts'],
      ['two folders importing each other', 'no-folder-cycle: src/payouts → src/use-cases'],
      ['a route importing a repository', 'routes-call-use-cases-not-repositories: src/http/routes/merchant-v1/purchases.ts → src/purchases/purchase-repository.ts'],
      [
        'a back-office handler importing a repository (a type only)',
        'routes-call-use-cases-not-repositories: src/http/backoffice/api/purchases.ts → src/purchases/purchase-repository.ts',
      ],
      ['a use case recording a PSP answer itself', 'money-moves-through-the-engine: src/use-cases/refunds/refund-purchase.ts → src/money/payment-record-repository.ts'],
      ['a capability folder calling one it may not', 'use-case-folder-payouts: src/use-cases/payouts/payout-list.ts → src/use-cases/checkout/pay-as-leader.ts'],
    ])('%s', async (_what, violation) => {
      expect(await found).toContain(violation);
    });

    it('the money engine itself records', async () => {
      expect((await found).filter((v) => v.includes('src/money/movement.ts'))).toEqual([]);
    });
  });
});

describe('SQL is written only in repositories and db/, connectors are called only by the money engine (ESLint)', () => {
  const eslint = new ESLint({ cwd: ROOT });
  const sqlFindings = async (text: string, filePath: string) =>
    (await eslint.lintText(text, { filePath: join(ROOT, filePath) }))[0]!.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.line);
  const USE_CASE = [
    "import type { Sql } from '../db/database.ts';",
    'export async function count(sql: Sql, accountId: string): Promise<number> {',
    "  const { rows } = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM purchases WHERE account_id = $1', [accountId]);",
    '  return rows[0]!.n;',
    '}',
    'export const BY_ID = `SELECT * FROM purchases WHERE id = $1`;',
    "export const version = /^v(\\d+)$/.exec('v2')?.[1];",
    '',
  ].join('\n');

  it('a use case running `.query(` with SQL text is reported, a regular expression’s exec is not', async () => {
    expect(await sqlFindings(USE_CASE, 'src/use-cases/count-purchases.ts')).toEqual([3, 3, 6]);
  });

  it('the same code in a repository or under db/ is allowed', async () => {
    expect(await sqlFindings(USE_CASE, 'src/purchases/purchase-repository.ts')).toEqual([]);
    expect(await sqlFindings(USE_CASE, 'src/db/counts.ts')).toEqual([]);
  });

  const CALLS_A_CONNECTOR = [
    "import type { AccountConnector } from '../psp/registry.ts';",
    'export async function giveBack(psp: AccountConnector, transaction: { transactionId: string; pspState: null }) {',
    "  return psp.refund({ idempotencyKey: 'k', transaction, amountCents: 100 });",
    '}',
    '',
  ].join('\n');

  it("a use case calling a connector's money operation itself is reported; the engine and the connectors may", async () => {
    expect(await sqlFindings(CALLS_A_CONNECTOR, 'src/use-cases/give-back/give-back.ts')).toEqual([3]);
    expect(await sqlFindings(CALLS_A_CONNECTOR, 'src/money/psp-call.ts')).toEqual([]);
    expect(await sqlFindings(CALLS_A_CONNECTOR, 'src/psp/adyen/connector.ts')).toEqual([]);
  });

  // ESLint over all of src/ (about 18 s of CPU) is what `npm run lint` runs, a step of .ci/run:
  // here in the full run only. The bound is a hang guard, not a timing assertion.
  it.runIf(FULL_RUN)('src/ has no SQL outside repositories and db/', { timeout: 120_000 }, async () => {
    const results = await eslint.lintFiles(['src']);
    const outside = results.filter((r) => r.messages.some((m) => m.ruleId === 'no-restricted-syntax')).map((r) => r.filePath.slice(ROOT.length));
    expect(outside).toEqual([]);
  });
});

describe('exports nothing uses fail lint (knip)', () => {
  it('npm run lint runs knip', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts.lint).toMatch(/(^|&& )knip\b/);
  });

  // knip with the repository's knip.jsonc on a tree of three files (about 1 s of CPU; over the
  // whole tree it is `npm run lint`'s part): an export the entry point uses, one only a test
  // uses, and an export and an exported type nothing uses.
  it('a deliberately unused export under src/ makes knip fail, naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chipin-knip-'));
    try {
      const write = (file: string, text: string) => {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        writeFileSync(join(dir, file), text);
      };
      copyFileSync(join(ROOT, 'knip.jsonc'), join(dir, 'knip.jsonc'));
      write('package.json', JSON.stringify({ name: 'knip-probe', private: true, type: 'module', scripts: { start: 'node src/main.ts' } }));
      write('src/main.ts', "import { used } from './probe.ts';\nconsole.log(used);\n");
      write('src/probe.ts', 'export const used = 1;\nexport const forTests = 2;\nexport const unused = 3;\nexport type Unused = number;\n');
      write('test/probe.test.ts', "import { forTests } from '../src/probe.ts';\nconsole.log(forTests);\n");
      const knip = join(ROOT, 'node_modules/knip/bin/knip.js');
      const failed = await promisify(execFile)(process.execPath, [knip, '--no-progress', '--reporter', 'json'], { cwd: dir }).then(
        () => undefined,
        (error: { code: number; stdout: string }) => error,
      );
      expect(failed?.code).toBe(1);
      const { issues } = JSON.parse(failed!.stdout) as { issues: { file: string; exports: { name: string }[]; types: { name: string }[]; files: unknown[] }[] };
      expect(issues.map((i) => ({ file: i.file, exports: i.exports.map((e) => e.name), types: i.types.map((t) => t.name) }))).toEqual([
        { file: 'src/probe.ts', exports: ['unused'], types: ['Unused'] },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
