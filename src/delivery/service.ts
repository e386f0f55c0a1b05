import type { Config } from '../config.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import type { Clock } from '../domain/clock.ts';
import type { Mailer } from '../messaging/mailer.ts';
import { setWebhookEndpoint, stillSigningUntil, type WebhookSetResult, type WebhookSettings } from './endpoints.ts';
import { findWebhookEndpoint, removeWebhookEndpoint } from './webhook-endpoint-repository.ts';
import { findDelivery, listAttempts, listDeliveries, replayDelivery, type AttemptView, type DeliveryFilter, type DeliveryView, type ReplayResult } from './delivery-repository.ts';
import { queueStats } from './delivery-queue-repository.ts';
import { TRIGGER_NAMES, type TriggerName } from './triggers.ts';
import type { WebhookMessage } from './webhook-payload.ts';
import { newUuid } from '../domain/ids.ts';
import { AddressPolicy } from '../outbound/addresses.ts';
import { DeliveryWorker } from './worker.ts';
import type { DeliveryLog, DeliveryMetricsSink, DeliveryWorkerOptions } from './worker-deps.ts';

/** What `list` and `find` answer, for the back office's handlers that show them. */
export type { AttemptView, DeliveryView };

export interface DeliveryOptions extends DeliveryWorkerOptions {
  /** Run the background worker (LISTEN, timers, poll). Default true; tests may drive `runDue` alone. */
  background?: boolean;
}

export interface DeliveriesDeps {
  db: Database;
  box: SecretBox;
  clock: Clock;
  config: Pick<Config, 'env' | 'webhookAllowedHosts'>;
  mailer: Mailer | undefined;
  metrics?: DeliveryMetricsSink;
  log: DeliveryLog;
}

/** The read-back of an endpoint: its settings plus whether a 410 disabled it. */
export interface WebhookEndpointView extends WebhookSettings {
  disabledAt: Date | null;
  disabledReason: string | null;
  updatedAt: Date;
}

/**
 * Event delivery of one process (docs/webhooks.md): the account's webhook endpoint, the
 * back-office views of deliveries, and the worker that sends them. Built by app.ts.
 */
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** What a test event came to: sent (and what the endpoint answered), or why it could not be sent. */
export type TestEventResult =
  | { kind: 'sent'; triggerName: TriggerName; delivered: boolean; statusCode: number | null; error: string | null; durationMs: number }
  | { kind: 'no_endpoint' }
  | { kind: 'disabled' };

export class Deliveries {
  readonly worker: DeliveryWorker;
  readonly policy: AddressPolicy;
  readonly #deps: DeliveriesDeps;
  readonly #background: boolean;

  constructor(deps: DeliveriesDeps, opts: DeliveryOptions = {}) {
    this.#deps = deps;
    this.#background = opts.background ?? true;
    this.policy = new AddressPolicy(deps.config.env, deps.config.webhookAllowedHosts ?? []);
    this.worker = new DeliveryWorker(
      {
        db: deps.db,
        box: deps.box,
        clock: deps.clock,
        policy: this.policy,
        mailer: deps.mailer,
        ...(deps.metrics ? { metrics: deps.metrics } : {}),
        log: deps.log,
      },
      opts,
    );
  }

  async start(): Promise<void> {
    if (this.#background) await this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  /** Sets the account's endpoint; a new token and signing secret only for a new endpoint or when `rotate` asks (setWebhookEndpoint). */
  async setWebhook(accountId: string, input: { url: string; events?: readonly string[]; rotate?: boolean }): Promise<WebhookSetResult> {
    const settings = await setWebhookEndpoint(this.#deps.db, this.#deps.box, accountId, input, this.#deps.clock.now(), this.policy);
    this.worker.wake();
    return settings;
  }

  /** Removes the account's endpoint and cancels its pending webhooks (removeWebhookEndpoint): undefined when none was set. */
  async removeWebhook(accountId: string): Promise<{ cancelled: number } | undefined> {
    const now = this.#deps.clock.now();
    const r = await this.#deps.db.transaction((tx) => removeWebhookEndpoint(tx, accountId, now));
    return r.removed ? { cancelled: r.cancelled } : undefined;
  }

  async getWebhook(accountId: string): Promise<WebhookEndpointView | undefined> {
    const e = await findWebhookEndpoint(this.#deps.db, this.#deps.box, accountId);
    return (
      e && {
        url: e.url,
        token: e.token.reveal(),
        secret: e.secret.reveal(),
        events: e.events,
        previousSecretUntil: stillSigningUntil(e.previousSecretUntil, this.#deps.clock.now()),
        disabledAt: e.disabledAt,
        disabledReason: e.disabledReason,
        updatedAt: e.updatedAt,
      }
    );
  }

  list(accountId: string, filter: DeliveryFilter): Promise<DeliveryView[]> {
    return listDeliveries(this.#deps.db, accountId, filter);
  }

  async find(accountId: string, id: string): Promise<(DeliveryView & { attemptLog: AttemptView[] }) | undefined> {
    const d = await findDelivery(this.#deps.db, accountId, id);
    return d && { ...d, attemptLog: await listAttempts(this.#deps.db, accountId, id) };
  }

  /**
   * Sends one signed test webhook to the account's endpoint now and answers what the endpoint
   * said. Not a delivery: nothing is recorded, retried, or counted (docs/webhooks.md#test-event).
   * The body has the real shape, for the first event the endpoint takes, with `triggerID` 0 and
   * the nil purchase id (or payout id, `po_` and the nil uuid, for `payoutPaid`: no real event has
   * either); `webhook-id` is `msg_test_…`.
   */
  async sendTest(accountId: string): Promise<TestEventResult> {
    const endpoint = await findWebhookEndpoint(this.#deps.db, this.#deps.box, accountId);
    if (!endpoint) return { kind: 'no_endpoint' };
    if (endpoint.disabledAt) return { kind: 'disabled' };
    const triggerName = endpoint.events[0] ?? TRIGGER_NAMES[0]!;
    const now = this.#deps.clock.now().toISOString();
    // A payout's webhook is about a payout: the nil one, of nothing, today.
    const objects: WebhookMessage['objects'] =
      triggerName === 'payoutPaid' ? { payoutId: `po_${NIL_UUID}`, amountCents: 0, currency: 'EUR', businessDay: now.slice(0, 10), lineCount: 0 } : { purchaseId: NIL_UUID };
    const message: WebhookMessage = { triggerID: 0, triggerName, triggerDate: now, objects };
    const sent = await this.worker.sendNow(endpoint, `msg_test_${newUuid()}`, message);
    return { kind: 'sent', triggerName, delivered: sent.delivered, statusCode: sent.statusCode ?? null, error: sent.error ?? null, durationMs: sent.durationMs };
  }

  async replay(accountId: string, id: string): Promise<ReplayResult> {
    const result = await replayDelivery(this.#deps.db, accountId, id, this.#deps.clock.now());
    if (result.ok) this.worker.wake();
    return result;
  }

  /** Pending deliveries and the age of the oldest due one, for /metrics. */
  queueStats(): Promise<{ depth: number; oldestDueAgeSeconds: number }> {
    return queueStats(this.#deps.db, this.#deps.clock.now());
  }
}
