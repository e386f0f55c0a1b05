/**
 * What the compatibility test files share: one app on a database of its own, a merchant, a real
 * HTTP receiver standing for the shop, and the replay of a fixture's request. Call once at the
 * top of a file: it registers the hooks.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { caller, type Caller } from '../helpers/api.ts';
import { isolatedDatabase, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { NO_JOB_POLL, Receiver, TEST_DELIVERY, type Answer, type Received } from '../delivery/helpers.ts';
import { requestUrl, type Fixture, type FixtureRequest, type Target } from './fixtures.ts';
import type { HandlerAnswer } from './plugins/shop.ts';

export type OfferKind = 'INSTALLMENTS' | 'DEFERRED' | 'SHARED' | 'DOWN_PAYMENT';

export interface CompatBed {
  app: TestApp;
  receiver: Receiver;
  merchant: Caller;
  /** The default offer of that kind (3x for INSTALLMENTS): the plugin's merchant id and secret. */
  offer(kind: OfferKind): { merchant_uid: string; secret: string };
  target(kind: OfferKind): Target;
  /** Sends a fixture's request as the plugin does: its method, path, headers and body text. */
  replay(f: Fixture, kind: OfferKind, req?: FixtureRequest): Promise<LightMyRequestResponse>;
  /** The re-stated plugin handler answers at the receiver, as the shop would. */
  serve(handle: (r: Received) => HandlerAnswer): void;
  /** Runs due deliveries a few times, each retry brought forward: bounded, no sleeping. */
  deliverAll(): Promise<void>;
}

export function compatBed(): CompatBed {
  let db: IsolatedDatabase;
  const bed = {} as CompatBed;
  beforeAll(async () => {
    db = await isolatedDatabase();
    bed.app = await startTestApp(NO_JOB_POLL, { db: db.open(), delivery: TEST_DELIVERY });
    bed.receiver = await Receiver.start();
    bed.merchant = await caller(bed.app);
  });
  afterAll(async () => {
    await bed.app?.close();
    await bed.receiver?.close();
    await db?.dispose();
  });
  beforeEach(async () => {
    bed.receiver.received.length = 0;
    bed.receiver.answer = { kind: 'status', code: 404 };
    // Each test's shop is a new one: deliveries still pending for an earlier test's shop are dropped.
    await bed.app.services.db.query(`UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE status = 'pending'`);
  });
  bed.offer = (kind) => bed.merchant.merchant.offers.find((o) => o.type === kind && (kind !== 'INSTALLMENTS' || o.installments === 3))!;
  bed.target = (kind) => ({ merchantUid: bed.offer(kind).merchant_uid, shopOrigin: `http://127.0.0.1:${bed.receiver.port}` });
  bed.replay = (f, kind, req = f.request as FixtureRequest) =>
    bed.app.server.inject({ method: req.method, url: requestUrl(f, bed.target(kind), bed.offer(kind).secret, req), headers: req.headers ?? {}, payload: req.body });
  bed.serve = (handle) => {
    bed.receiver.answer = (r: Received): Answer => {
      const a = handle(r);
      return { kind: 'status', code: a.status, headers: { 'content-type': 'application/json' }, body: a.body };
    };
  };
  bed.deliverAll = async () => {
    for (let i = 0; i < 4; i++) {
      await bed.app.services.deliveries.worker.runDue();
      await bed.app.services.db.query(`UPDATE deliveries SET next_attempt_at = $1 WHERE status = 'pending'`, [bed.app.services.clock.now()]);
    }
  };
  return bed;
}
