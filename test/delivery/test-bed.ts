/**
 * What the delivery worker's test files share: one receiver, reset after each test, and apps on
 * databases of their own, closed and dropped after each test. Call once at the top of a file:
 * it registers the hooks.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Config } from '../../src/config.ts';
import type { DeliveryOptions } from '../../src/delivery/service.ts';
import { isolatedDatabase, startTestApp, type IsolatedDatabase, type TestApp } from '../helpers/app.ts';
import { NO_JOB_POLL, Receiver, TEST_DELIVERY } from './helpers.ts';

export interface DeliveryTestBed {
  /** Started before the file's first test. */
  receiver: Receiver;
  /** A database dropped after the test, for several apps to share (as processes would). */
  database(): Promise<IsolatedDatabase>;
  /** An app on a database of its own, or on `shared` (one more handle, as a second process would have). */
  freshApp(opts?: { config?: Partial<Config>; delivery?: DeliveryOptions }, shared?: IsolatedDatabase): Promise<TestApp>;
}

export function deliveryTestBed(): DeliveryTestBed {
  const open: TestApp[] = [];
  const dbs: IsolatedDatabase[] = [];
  const bed: DeliveryTestBed = {
    receiver: undefined as unknown as Receiver,
    async database() {
      const db = await isolatedDatabase();
      dbs.push(db);
      return db;
    },
    async freshApp(opts = {}, shared) {
      const db = shared ?? (await bed.database());
      const app = await startTestApp({ ...NO_JOB_POLL, ...opts.config }, { db: db.open(), delivery: { ...TEST_DELIVERY, ...opts.delivery } });
      open.push(app);
      return app;
    },
  };
  beforeAll(async () => {
    bed.receiver = await Receiver.start();
  });
  afterEach(async () => {
    bed.receiver.releaseHeld();
    bed.receiver.answer = { kind: 'status', code: 204 };
    bed.receiver.received.length = 0;
    await Promise.all(open.splice(0).map((a) => a.close()));
    await Promise.all(dbs.splice(0).map((d) => d.dispose()));
  });
  afterAll(async () => {
    await bed.receiver?.close();
  });
  return bed;
}
