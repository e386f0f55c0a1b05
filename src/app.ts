import { destination, pino, type DestinationStream, type Logger } from 'pino';
import { Accounts } from './accounts/accounts.ts';
import { OfferCache } from './accounts/offers.ts';
import { RiskRulesCache } from './risk/risk-rules-cache.ts';
import { AccessTokens } from './auth/access-tokens.ts';
import { AttemptBudgets } from './auth/attempt-budgets.ts';
import { RevokedKeys } from './auth/revoked-keys.ts';
import { recentlyRevokedApiKeys } from './accounts/api-key-repository.ts';
import type { Config } from './config.ts';
import { SecretBox } from './crypto/secret-box.ts';
import { deriveKey } from './crypto/keys.ts';
import { callScoringHook } from './risk/scoring-hook.ts';
import type { RiskDeps } from './use-cases/risk/payment-risk.ts';
import { verifyConfiguredKey } from './crypto/master-key-check.ts';
import type { Database } from './db/database.ts';
import { migrate, newerMigrations } from './db/migrate.ts';
import { SandboxClock } from './clock/sandbox-clock.ts';
import { systemClock, type Clock } from './domain/clock.ts';
import { DueWork } from './jobs/due-work.ts';
import { registerDisputeJobs } from './use-cases/disputes/dispute.ts';
import { JobScheduler } from './jobs/scheduler.ts';
import type { PaymentDeps } from './use-cases/deps.ts';
import { registerPaymentJobs } from './use-cases/jobs.ts';
import { ExpirySweep } from './use-cases/checkout/expire-purchase.ts';
import { startDashboardPurge } from './staff/purge.ts';
import { openDatabase } from './db/open.ts';
import { openPostgres } from './db/postgres.ts';
import { openReplicaReads, REPLICA_POOL, type ReplicaReads } from './db/read-replica.ts';
import { Metrics } from './observability/metrics.ts';
import { mainListenerMetrics, METRICS_OFF_WARNING, MetricsToken } from './observability/metrics-access.ts';
import { MetricsListener } from './observability/metrics-listener.ts';
import { Readiness } from './observability/readiness.ts';
import { buildServer } from './http/server.ts';
import { createMailer, type Mailer } from './messaging/mailer.ts';
import { OutboundMessenger } from './messaging/outbound-messenger.ts';
import { startShopperSpacePurge } from './shopper-space/purge.ts';
import { createSmsGateway, type SmsGateway } from './messaging/sms.ts';
import { createPspRegistry, DEFAULT_PSP, type PspRegistry } from './psp/registry.ts';
import type { ConnectorDefinition } from './psp/definition.ts';
import { findPaymentPspAccount, offersOnSandboxPsp, pspNamesInUse, toStored } from './psp-accounts/psp-account-repository.ts';
import { Deliveries, type DeliveryOptions } from './delivery/service.ts';
import type { AddressPolicy } from './outbound/addresses.ts';
import type { App } from './http/types.ts';
import type { Services } from './services.ts';

export interface ChipinApp {
  server: App;
  services: Services;
  logger: Logger;
  /**
   * The listener of METRICS_PORT (docs/deployment.md#metrics-and-alerts), not listening yet: the
   * caller that listens on the main port starts it too. `close()` closes it. Absent without METRICS_PORT.
   */
  metricsListener: MetricsListener | undefined;
  /**
   * Fails readiness and waits SHUTDOWN_DRAIN_MS while still serving, so that the balancer stops
   * sending requests before `close()` (docs/deployment.md#draining).
   */
  drain(): Promise<void>;
  /** Stops background work, lets in-flight requests finish, then closes the database. */
  close(): Promise<void>;
}

export interface AppOptions {
  /** An already open database (tests); by default the configured one is opened. */
  db?: Database;
  /** Where JSON log lines go (tests capture them); stdout by default. */
  logStream?: DestinationStream;
  /** Process-wide metrics (CPU, memory, event loop) are off in tests, where many apps share a process. */
  processMetrics?: boolean;
  /** Event delivery knobs (tests: a short timeout, no background worker); production defaults otherwise. */
  delivery?: DeliveryOptions;
  /**
   * The PSP connector definitions (tests: a fake connector with credential fields); this build's
   * list (`src/psp/definitions.ts`) by default.
   */
  pspDefinitions?: readonly ConnectorDefinition[];
}

function createLogger(config: Pick<Config, 'logLevel'>, stream?: DestinationStream): Logger {
  let out = stream;
  if (!out) {
    // Asynchronous stdout keeps log writes off the request path (they batch under load); what
    // is still buffered when the process exits (shutdown) is written synchronously then.
    const stdout = destination({ dest: 1, sync: false });
    process.once('exit', () => stdout.flushSync());
    out = stdout;
  }
  return pino(
    {
      level: config.logLevel,
      base: { service: 'chipin' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Belt and braces: these never belong in a log line, whoever passes them. Top-level keys
      // only: wildcard paths cost every log call a walk of the object.
      redact: { paths: ['authorization', 'password', 'api_secret', 'secret', 'access_token'], censor: '[redacted]' },
    },
    out,
  );
}

/**
 * The back office's read handle on the replica (docs/deployment.md#read-replicas): its verdicts
 * go to /metrics, and each change of where the reads go to the log (a warning when they leave the
 * replica, so operators see a lagging or lost replica before staff see old figures).
 */
function openReads(db: Database, url: string, maxLagMs: number, metrics: Metrics, logger: Logger): ReplicaReads {
  metrics.registerReadReplica();
  const log = logger.child({ component: 'read-replica' });
  // REPLICA_POOL: a replica that does not answer fails its connection in 2 s and a statement in
  // 5 s: the reads go to the primary meanwhile.
  return openReplicaReads(db, openPostgres(url, REPLICA_POOL), {
    maxLagMs,
    onVerdict(v, previous) {
      metrics.readReplicaInUse.set(v.useReplica ? 1 : 0);
      if (v.lagMs !== undefined) metrics.readReplicaLag.set(v.lagMs / 1000);
      if (previous !== undefined && previous.useReplica === v.useReplica && previous.reason === v.reason) return;
      if (v.useReplica) log.info({ lagMs: v.lagMs }, 'back-office reads go to the read replica');
      else log.warn({ reason: v.reason, lagMs: v.lagMs, maxLagMs, err: v.error }, 'back-office reads go to the primary: the read replica is not usable');
    },
    onQuery: (target) => metrics.readQueries.inc({ target }),
    onReplicaError: (err) => log.warn({ err }, 'a read failed on the read replica: run on the primary'),
  });
}

/**
 * Brings the schema up to date (a newer one is served as it is: a rolling upgrade) and checks the
 * master key against the database's before anything opens a sealed secret.
 */
async function prepareDatabase(db: Database, config: Config, logger: Logger): Promise<void> {
  const applied = await migrate(db);
  if (applied.length > 0) logger.info({ versions: applied }, 'database migrations applied');
  // A rolling upgrade: the next release migrated ahead of this process, which keeps serving.
  const newer = await newerMigrations(db);
  if (newer.length > 0) logger.info({ versions: newer }, 'database schema is newer than this build: serving on it (rolling upgrade)');
  // Before anything opens a sealed secret: a process with another key would run, and fail each
  // signature and PSP call one by one (docs/security.md, "The master key").
  await verifyConfiguredKey(db, config);
}

/**
 * The PSP connectors, with the PSP accounts they load from the database; refused at boot when the
 * database names a PSP this build does not know, and in production the offers still on the
 * built-in sandbox PSP named once.
 */
async function buildPsps(db: Database, box: SecretBox, clock: Clock, config: Config, opts: AppOptions, logger: Logger): Promise<PspRegistry> {
  const psps = createPspRegistry({
    db,
    clock,
    publicUrl: config.publicUrl,
    masterKey: config.masterKey,
    production: config.env === 'production',
    endpointAllowlist: config.pspEndpointAllowlist ?? [],
    loadAccount: async (accountId, id) => {
      const row = await findPaymentPspAccount(db, accountId, id);
      return row && toStored(box, row);
    },
    ...(opts.pspDefinitions ? { definitions: opts.pspDefinitions } : {}),
    // Debug lines of each PSP call (method, path, status, request id; never a header or a body).
    logger: logger.child({ component: 'psp' }),
  });
  psps.assertKnownPsps(await pspNamesInUse(db));
  if (config.env === 'production') {
    // Production takes no payment on the built-in sandbox PSP
    // (docs/psp-connectors.md#production); each such offer refuses its payments until it is bound
    // to a PSP account. Said once at boot, naming them.
    const onSandbox = await offersOnSandboxPsp(db, DEFAULT_PSP);
    if (onSandbox.length > 0) {
      logger.error(
        { offers: onSandbox.map((o) => ({ account_id: `acc_${o.accountId}`, merchant_uid: `mer_${o.offerId}` })) },
        `${onSandbox.length} offer(s) run on the built-in sandbox PSP, refused in production: their payments fail until each is bound to a PSP account (PATCH /api/backoffice/offers/{merchant_uid} or "chipin offer set-psp-account")`,
      );
    }
  }
  return psps;
}

/** The e-mail and SMS channels, said once at boot (and warned of in production when one is missing). */
function openChannels(config: Config, logger: Logger): { mailer: Mailer; sms: SmsGateway } {
  const mailer = createMailer(config);
  const sms = createSmsGateway(config);
  logger.info({ email: mailer.kind, sms: sms.kind }, 'messaging channels');
  if (config.env === 'production' && (mailer.kind === 'none' || sms.kind === 'none')) {
    logger.warn({ email: mailer.kind, sms: sms.kind }, 'SMTP_URL or SMS_GATEWAY_URL unset: purchase links requested on that channel will not be sent');
  }
  return { mailer, sms };
}

/**
 * The payment use cases' dependencies, their durable jobs registered, and the expiry sweep of
 * unpaid purchases. The scoring hook goes out through the webhooks' address rule and pool:
 * `hookPolicy` is read at each call, the deliveries being made after these.
 */
function buildPayments(
  parts: Pick<PaymentDeps, 'db' | 'clock' | 'box' | 'logger'> & {
    psps: PspRegistry;
    config: Config;
    mailer: Mailer;
    sms: SmsGateway;
    jobs: JobScheduler;
    hookPolicy: () => AddressPolicy;
  },
) {
  const { db, clock, psps, box, logger, config, mailer, sms, jobs, hookPolicy } = parts;
  const offers = new OfferCache(db, undefined, undefined, config.creditLender);
  const messenger = new OutboundMessenger({ db, mailer, sms, logger, clock });
  const riskRules = new RiskRulesCache(db);
  const risk: RiskDeps = {
    rules: riskRules,
    cardKey: deriveKey(config.masterKey, 'card-fingerprints'),
    callHook: (hook, question) => callScoringHook({ box, policy: hookPolicy() }, hook, question),
  };
  const payments: PaymentDeps = { db, clock, offers, psps, messenger, box, publicUrl: config.publicUrl, logger, risk };
  registerPaymentJobs(jobs, payments);
  registerDisputeJobs(jobs, payments, psps.sandbox);
  // Unpaid purchases expire by a sweep over their expiry's index, not by a job each (docs/purchase-lifecycle.md#expiry).
  const expiries = new ExpirySweep({ db, clock, log: logger });
  return { offers, messenger, riskRules, payments, expiries };
}

/** The composition root: config in, a ready service out. The only place that wires parts together. */
export async function createApp(config: Config, opts: AppOptions = {}): Promise<ChipinApp> {
  const logger = createLogger(config, opts.logStream);
  const db = opts.db ?? (await openDatabase(config));
  let replicaReads: ReplicaReads | undefined;
  try {
    await prepareDatabase(db, config, logger);

    const box = new SecretBox(config.masterKey);
    const revokedKeys = new RevokedKeys(
      (seconds) => recentlyRevokedApiKeys(db, seconds),
      (err) => logger.warn({ err }, 'could not refresh revoked API keys'),
    );
    await revokedKeys.refresh();
    revokedKeys.start();

    // One clock for the whole service; in sandbox it can be moved forward
    // (docs/jobs-and-clock.md#the-service-clock).
    const sandboxClock = config.env === 'sandbox' ? await SandboxClock.open(db, { onError: (err) => logger.warn({ err }, 'could not refresh the sandbox clock') }) : undefined;
    const clock = sandboxClock ?? systemClock;
    const jobs = new JobScheduler({ db, clock, log: logger });
    const dueWork = new DueWork();
    dueWork.register(jobs);

    const psps = await buildPsps(db, box, clock, config, opts, logger);
    const { mailer, sms } = openChannels(config, logger);
    const { offers, messenger, riskRules, payments, expiries } = buildPayments({ db, clock, psps, box, logger, config, mailer, sms, jobs, hookPolicy: () => deliveries.policy });
    dueWork.register(expiries);

    const metrics = new Metrics({ processMetrics: opts.processMetrics ?? true });
    const deliveries = new Deliveries({ db, box, clock, config, mailer, metrics, log: logger }, opts.delivery);
    dueWork.register(deliveries.worker);
    metrics.setDeliveryQueueProbe(() => deliveries.queueStats());
    metrics.setJobLagProbe(() => jobs.oldestDueAgeSeconds());
    if (mainListenerMetrics(config) === 'off') logger.warn(METRICS_OFF_WARNING);
    const metricsListener =
      config.metricsListener &&
      new MetricsListener(metrics, config.metricsListener, config.metricsToken && new MetricsToken(config.metricsToken), logger.child({ component: 'metrics' }));
    if (config.databaseReadUrl !== undefined) {
      replicaReads = openReads(db, config.databaseReadUrl, config.databaseReadMaxLagMs ?? 5_000, metrics, logger);
      // The first requests know where to read; a replica down is no failure (reads go to the primary).
      await replicaReads.check();
    }

    const services: Services = {
      config,
      db,
      reads: replicaReads ?? db,
      box,
      accounts: new Accounts(db, box),
      tokens: new AccessTokens(config.masterKey),
      revokedKeys,
      authBudgets: new AttemptBudgets(db),
      metrics,
      readiness: new Readiness(),
      clock,
      offers,
      riskRules,
      dueWork,
      jobs,
      sandboxClock,
      messenger,
      mailer,
      sms,
      psps,
      payments,
      pspAccounts: { db, box, clock, psps, offers, deployment: config.env, logger },
      deliveries,
    };
    const server = await buildServer(services, logger);
    const pollMs = config.jobPollIntervalMs ?? 1_000;
    sandboxClock?.start();
    if (pollMs > 0) {
      jobs.start(pollMs);
      expiries.start(pollMs);
    }
    await deliveries.start();
    const stopPurge = startDashboardPurge(db, logger, undefined, config.riskDecisionRetentionDays);
    const stopShopperPurge = startShopperSpacePurge(db, clock, logger);

    let closing: Promise<void> | undefined;
    return {
      server,
      services,
      logger,
      metricsListener,
      drain: () => services.readiness.drain(config.shutdownDrainMs ?? 0),
      close: () =>
        (closing ??= (async () => {
          revokedKeys.stop();
          stopPurge();
          stopShopperPurge();
          sandboxClock?.stop();
          try {
            await deliveries.stop(); // interrupts attempts in flight and records them, before mail and database go
            mailer.close();
            await Promise.all([server.close(), metricsListener?.close()]);
          } finally {
            await jobs.stop(); // lets a running job finish before its database goes
            await expiries.stop();
            await replicaReads?.close();
            await db.close();
          }
        })()),
    };
  } catch (err) {
    await replicaReads?.close().catch(() => {});
    await db.close().catch(() => {});
    throw err;
  }
}
