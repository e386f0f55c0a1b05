/**
 * `chipin_job_oldest_due_age_seconds` (docs/jobs-and-clock.md#operating): how long the oldest due
 * job of a kind this process handles has waited unclaimed, read at each scrape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertJob } from '../../src/jobs/job-repository.ts';
import { POT_DEADLINE_JOB } from '../../src/use-cases/pot/pot-jobs.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

describe('chipin_job_oldest_due_age_seconds', () => {
  let app: TestApp;
  beforeAll(async () => {
    // No polling: the due job stays unclaimed while the test reads the gauge.
    app = await startTestApp({ jobPollIntervalMs: 0 });
  });
  afterAll(() => app.close());

  const gauge = async () => {
    const text = (await app.server.inject('/metrics')).body;
    const line = /^chipin_job_oldest_due_age_seconds (\S+)$/m.exec(text);
    expect(line, text).not.toBeNull();
    return Number(line![1]);
  };

  it('is 0 with no due job, then the age of the oldest due and unclaimed one of a handled kind', async () => {
    expect(await gauge()).toBe(0);
    const now = app.services.clock.now().getTime();
    // A kind no handler of this process knows is not counted (no process here would claim it).
    await insertJob(app.services.db, { accountId: null, kind: 'not.a.kind', key: `lag-unknown-${now}`, runAt: new Date(now - 3_600_000), payload: {} });
    // Not due yet: not counted.
    await insertJob(app.services.db, { accountId: null, kind: POT_DEADLINE_JOB, key: `lag-later-${now}`, runAt: new Date(now + 600_000), payload: {} });
    expect(await gauge()).toBe(0);
    await insertJob(app.services.db, { accountId: null, kind: POT_DEADLINE_JOB, key: `lag-due-${now}`, runAt: new Date(now - 120_000), payload: {} });
    const age = await gauge();
    expect(age).toBeGreaterThanOrEqual(120);
    expect(age).toBeLessThan(180);
    // Leased by a running process: not waiting any more.
    await app.services.db.query(`UPDATE jobs SET locked_until = now() + interval '1 minute', lease_id = '00000000-0000-4000-8000-000000000000' WHERE dedupe_key = $1`, [
      `lag-due-${now}`,
    ]);
    expect(await gauge()).toBe(0);
  });
});
