import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/slowest-first.ts';

/**
 * What runs where (docs/testing.md). Every file runs on the embedded database (project `pglite`);
 * when DATABASE_URL is set, the files whose outcome depends on the SQL engine run on PostgreSQL
 * too (project `postgres`), in the same run. These run once: they test no SQL of ours, or nothing
 * a second engine could answer differently (pure domain rules, templates and pages, connectors
 * against their PSP's fake, fuzzing of the HTTP layer). A new test file runs on both unless it is
 * added here, with its reason.
 */
export const DATABASE_INDEPENDENT = [
  // Pure rules: money, schedules, APR, phones, templates, config parsing, crypto, an offer's parameters, the suite's budget.
  'test/domain/**',
  'test/unit/{config,crypto,html,request-logger,failure-throttle,date-time-format,replica-staleness,read-replica,offer-parameters,budget-reporter}.test.ts',
  'test/messaging/{templates,notice-templates,config,phone-numbers,french-apostrophes}.test.ts',
  'test/sdk/protocol.test.ts',
  'test/sdk/pledg-script.test.ts',
  'test/jobs/{config,serial-runs}.test.ts',
  'test/delivery/{policy,front-result,notification-signature,outcomes,shop-return}.test.ts',
  'test/outbound/**',
  'test/psp/endpoints.test.ts',
  // Each connector folder's files against docs/psp-connectors.md's standard set: reads files only.
  'test/psp/connector-files.test.ts',
  // Pages: what they show is the same on either engine (test/browser/** is its own project).
  'test/browser/**',
  'test/sdk/sdk-assets.test.ts',
  'test/dashboard/french.test.ts',
  'test/dashboard/texts-keys.test.ts',
  // Connectors against their PSP's fake server, and the fakes' kit: HTTP wire formats, no SQL of ours.
  // Their operation logs are the database's, and that SQL runs on both engines in test/psp/operations.test.ts
  // and test/psp/fresh-instance.test.ts.
  'test/psp/{adyen,hipay,lyra,ogone,stripe,fake-kit,monetico,centralpay,payline,dalenys,paybox,sips,checkout,mercadopago,midtrans,braintree,hyperswitch,hyperswitch-openapi,three-d-secure-choice,fondy,halyk,payline-schema}.test.ts',
  // A connector's list of transactions and its dispute notifications read against its fake; the kit's
  // HTTP client, CSV and fetch helpers; the authorisation validity rules: no SQL of ours.
  'test/psp/{adyen,braintree,stripe,mercadopago,hyperswitch}-list.test.ts',
  'test/psp/{adyen,braintree,checkout,hipay,hyperswitch,mercadopago,midtrans,stripe}-disputes.test.ts',
  'test/psp/{kit-client,kit-csv,kit-global-fetch,list-transactions,authorization-validity}.test.ts',
  'test/psp/*.live.test.ts',
  // Hostile input against the HTTP layer: refused before any SQL runs.
  'test/http/fuzz.test.ts',
  // Every route under every spelling, for every role: decided on the matched route before any
  // SQL of the route runs (test/http/path-rule.test.ts keeps the findings on both engines), and
  // the roles table of docs/security.md generated from the route registry.
  'test/http/route-walk.test.ts',
  'test/http/security-doc.test.ts',
  // Its own throwaway primary and standby (initdb, pg_basebackup), whatever DATABASE_URL names.
  'test/deploy/read-replica.test.ts',
  // The plugins' fixtures and their re-stated signature rules (test/compat/README.md): files and hashes, no database.
  'test/compat/fixtures.test.ts',
  // The docs read against the tree (module lists, citations): files only, no database. And
  // README.md's walkthrough, run against one sandbox server on the embedded database: what it
  // checks is that the README still matches the API; the SQL under its calls runs on both
  // engines in test/http/ and test/use-cases/.
  'test/docs/**',
  // The backup's archive_command on plain files (deploy/backup/archive-wal.sh), the topology's
  // down.sh on plain processes, HAProxy's configuration with no Chipin behind it, and the alert
  // rules read and checked by promtool.
  'test/deploy/{archive-wal,topology-down,haproxy-errors,prometheus-alerts}.test.ts',
  // The check of reads inside a transaction is on in the embedded database's projects only
  // (test/setup/transaction-scope.ts), where such a read deadlocks.
  'test/unit/transaction-scope.test.ts',
  // The pain.001 file built and checked against its schema (xmllint): no database.
  'test/payouts/pain001.test.ts',
  // The payout CLI's options, output and file as a process: the use cases under it run on both (test/payouts/).
  'test/process/payout-cli.test.ts',
  // The suite's reuse of PGlite databases within a worker (test/helpers/database.ts): PGlite's only.
  'test/db/reused-databases.test.ts',
];

const BROWSER = ['test/browser/**/*.test.ts'];

const postgres = process.env.DATABASE_URL?.trim();

export default defineConfig({
  test: {
    // PGlite starts from a migrated snapshot (~0.5 s per app); give slow suites room without hiding hangs.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker runs file after file in one process (of one project), importing the app once
    // instead of once per file: a quarter less wall time and a third less CPU on test/http and
    // test/dashboard (docs/testing.md). Every test app is still built fresh on a database of its
    // own; nothing in src/ or test/ keeps state across files that a test reads.
    isolate: false,
    // Most of a test's time is spent waiting (for a database, a timer, a socket): more files at
    // once than cores keeps both cores busy. Measured in docs/testing.md.
    maxWorkers: Number(process.env.CHIPIN_TEST_WORKERS ?? 4),
    // Within each project the slowest files start first, from test/file-times.json (docs/testing.md#the-order-of-files).
    sequence: { sequencer: SlowestFirst },
    // The budget fails the run when a file on PGlite passes 90 s of wall time (docs/testing.md#the-budget).
    reporters: ['default', './test/summary-reporter.ts', './test/budget-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'pglite',
          // After the browser suites, beside the postgres project's files (docs/testing.md#the-order-of-files).
          sequence: { groupOrder: 1 },
          include: ['test/**/*.test.ts'],
          exclude: BROWSER,
          globalSetup: ['./test/setup/pglite-snapshot.ts', './test/setup/cli-children.ts'],
          setupFiles: ['./test/setup/without-postgres.ts', './test/setup/transaction-scope.ts', './test/setup/one-statement-at-a-time.ts'],
        },
      },
      {
        // Pages in real Chromium, on the embedded database: one browser for the whole run.
        extends: true,
        test: {
          name: 'browser',
          // First, alone, two files at a time: four at once beside the other projects put 13
          // runnable processes on 2 cores (Chromium's renderers, the apps, the PGlite loads) and
          // pages timed out (docs/testing.md#the-order-of-files).
          sequence: { groupOrder: 0 },
          maxWorkers: Number(process.env.CHIPIN_TEST_BROWSER_WORKERS ?? 2),
          // A page test takes 3-6 s alone but shares 2 cores with Chromium and the other
          // projects' workers; under that load the 30 s default cut several off mid-page
          // (docs/testing.md#timeouts). Hangs still end.
          testTimeout: 90_000,
          // The same load made expect.poll's 1 s default give up on a page still answering (a
          // payment's callbacks, a status line): polls wait up to 20 s here.
          expect: { poll: { timeout: 20_000 } },
          include: BROWSER,
          globalSetup: ['./test/setup/pglite-snapshot.ts', './test/setup/browser-server.ts'],
          setupFiles: [
            './test/setup/without-postgres.ts',
            './test/setup/transaction-scope.ts',
            './test/setup/one-statement-at-a-time.ts',
            './test/setup/served-app-diagnostics.ts',
          ],
        },
      },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                sequence: { groupOrder: 1 },
                include: ['test/**/*.test.ts'],
                exclude: DATABASE_INDEPENDENT,
                globalSetup: ['./test/setup/postgres-template.ts', './test/setup/cli-children.ts'],
                setupFiles: ['./test/setup/one-statement-at-a-time.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
