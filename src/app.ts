import { pino, type DestinationStream, type Logger } from 'pino';
import { Accounts } from './accounts/accounts.ts';
import { OfferCache } from './accounts/offers.ts';
import { AccessTokens } from './auth/access-tokens.ts';
import { FailureThrottle } from './auth/failure-throttle.ts';
import { RevokedKeys } from './auth/revoked-keys.ts';
import type { Config } from './config.ts';
import { SecretBox } from './crypto/secret-box.ts';
import type { Database } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { systemClock } from './domain/clock.ts';
import { DueWork } from './jobs/due-work.ts';
import { openDatabase } from './db/open.ts';
import { Metrics } from './http/metrics.ts';
import { buildServer } from './http/server.ts';
import { createMailer } from './messaging/mailer.ts';
import { OutboundMessenger } from './messaging/outbound-messenger.ts';
import { createSmsGateway } from './messaging/sms.ts';
import type { App } from './http/types.ts';
import type { Services } from './services.ts';

export interface ChipinApp {
  server: App;
  services: Services;
  logger: Logger;
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
}

export function createLogger(config: Pick<Config, 'logLevel'>, stream?: DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'chipin' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Belt and braces: these never belong in a log line, whoever passes them.
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'password', 'api_secret', 'secret', 'access_token', '*.password', '*.api_secret', '*.secret', '*.access_token'],
        censor: '[redacted]',
      },
    },
    stream,
  );
}

/** The composition root: config in, a ready service out. The only place that wires parts together. */
export async function createApp(config: Config, opts: AppOptions = {}): Promise<ChipinApp> {
  const logger = createLogger(config, opts.logStream);
  const db = opts.db ?? (await openDatabase(config));
  try {
    const applied = await migrate(db);
    if (applied.length > 0) logger.info({ versions: applied }, 'database migrations applied');

    const box = new SecretBox(config.masterKey);
    const revokedKeys = new RevokedKeys(db, (err) => logger.warn({ err }, 'could not refresh revoked API keys'));
    await revokedKeys.refresh();
    revokedKeys.start();

    const mailer = createMailer(config);
    const sms = createSmsGateway(config);
    logger.info({ email: mailer.kind, sms: sms.kind }, 'messaging channels');
    if (config.env === 'production' && (mailer.kind === 'none' || sms.kind === 'none')) {
      logger.warn({ email: mailer.kind, sms: sms.kind }, 'SMTP_URL or SMS_GATEWAY_URL unset: purchase links requested on that channel will not be sent');
    }

    const services: Services = {
      config,
      db,
      box,
      accounts: new Accounts(db, box),
      tokens: new AccessTokens(config.masterKey),
      revokedKeys,
      tokenThrottle: {
        byKey: new FailureThrottle(5, 60_000),
        byAddress: new FailureThrottle(20, 60_000),
      },
      metrics: new Metrics({ processMetrics: opts.processMetrics ?? true }),
      clock: systemClock,
      offers: new OfferCache(db),
      dueWork: new DueWork(),
      messenger: new OutboundMessenger({ db, mailer, sms, logger, clock: systemClock }),
    };
    const server = await buildServer(services, logger);

    let closing: Promise<void> | undefined;
    return {
      server,
      services,
      logger,
      close: () =>
        (closing ??= (async () => {
          revokedKeys.stop();
          try {
            mailer.close();
            await server.close();
          } finally {
            await db.close();
          }
        })()),
    };
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}
