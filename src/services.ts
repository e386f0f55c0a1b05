import type { Accounts } from './accounts/accounts.ts';
import type { OfferCache } from './accounts/offers.ts';
import type { RiskRulesCache } from './risk/risk-rules-cache.ts';
import type { AccessTokens } from './auth/access-tokens.ts';
import type { AttemptBudgets } from './auth/attempt-budgets.ts';
import type { RevokedKeys } from './auth/revoked-keys.ts';
import type { Config } from './config.ts';
import type { SecretBox } from './crypto/secret-box.ts';
import type { Database, Sql } from './db/database.ts';
import type { PaymentDeps } from './use-cases/deps.ts';
import type { PspAccountDeps } from './use-cases/merchant-setup/psp-accounts.ts';
import type { Clock } from './domain/clock.ts';
import type { DueWork } from './jobs/due-work.ts';
import type { JobScheduler } from './jobs/scheduler.ts';
import type { SandboxClock } from './clock/sandbox-clock.ts';
import type { Metrics } from './observability/metrics.ts';
import type { Readiness } from './observability/readiness.ts';
import type { Messenger } from './messaging/messenger.ts';
import type { Mailer } from './messaging/mailer.ts';
import type { SmsGateway } from './messaging/sms.ts';
import type { PspRegistry } from './psp/registry.ts';
import type { Deliveries } from './delivery/service.ts';

/** Everything a request handler may use, built once by the composition root (app.ts). */
export interface Services {
  config: Config;
  db: Database;
  /**
   * Reads that may be a few seconds old: the back office's lists, CSV exports, home figures and
   * reports. The read replica while it is fresh enough, else the primary; `db` itself without
   * DATABASE_READ_URL (docs/deployment.md#read-replicas). Money decisions never use it.
   */
  reads: Sql;
  box: SecretBox;
  accounts: Accounts;
  tokens: AccessTokens;
  revokedKeys: RevokedKeys;
  /** The credential failure budgets (dashboard users, API keys, client addresses), shared through the database. */
  authBudgets: AttemptBudgets;
  metrics: Metrics;
  /** Whether the process takes new requests: false once it drains before a shutdown (docs/deployment.md#draining). */
  readiness: Readiness;
  /** The service's one clock (docs/jobs-and-clock.md#the-service-clock). */
  clock: Clock;
  offers: OfferCache;
  /** Each account's risk rules, kept a few seconds per process like its offers (docs/risk.md). */
  riskRules: RiskRulesCache;
  /** Time-driven background work; the sandbox clock drains it after each advance. */
  dueWork: DueWork;
  /** Durable jobs (src/jobs/scheduler.ts): register handlers here; schedule with `scheduleJob`. */
  jobs: JobScheduler;
  /** The movable clock behind `clock` in sandbox; undefined in production. */
  sandboxClock: SandboxClock | undefined;
  /** E-mail and SMS to shoppers (purchase links); every attempt is recorded in outbound_messages. */
  messenger: Messenger;
  /** The mail transport itself, for mail to the merchant's staff (back-office invitations). */
  mailer: Mailer;
  /** The SMS gateway itself, for messages that are no merchant's (the shopper's space sign-in codes). */
  sms: SmsGateway;
  /**
   * PSP connectors by name (`offers.psp`); `sandbox` is built in and the default
   * (docs/psp-connectors.md#the-registry).
   */
  psps: PspRegistry;
  /** What the payment flows (hosted pages, sandbox helpers, jobs) need. */
  payments: PaymentDeps;
  /** PSP accounts of back mode (docs/psp-connectors.md#psp-accounts): what their use cases need. */
  pspAccounts: PspAccountDeps;
  /** Webhooks and back-mode notifications: endpoints, delivery log, replay, the worker (docs/webhooks.md). */
  deliveries: Deliveries;
}
