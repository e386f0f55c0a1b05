import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { CommitNotifier } from '../../src/db/notifier.ts';
import { isolatedDatabase, onPostgres, type IsolatedDatabase } from '../helpers/app.ts';

const channel = () => `t_${randomBytes(6).toString('hex')}`;
const opened: IsolatedDatabase[] = [];
afterAll(() => Promise.all(opened.map((d) => d.dispose())));
async function database(): Promise<IsolatedDatabase> {
  const d = await isolatedDatabase();
  opened.push(d);
  return d;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await sleep(10);
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe(`Sql.notify (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it("a transaction's notification reaches listeners after its commit, and never when it rolls back", async () => {
    const db = await (await database()).open();
    const ch = channel();
    const heard: string[] = [];
    const stop = await db.listen(ch, (payload) => heard.push(payload));

    await db.transaction(async (tx) => {
      tx.notify(ch);
      await sleep(30);
      expect(heard, 'nothing before the commit').toEqual([]);
    });
    await until(() => heard.length === 1, 'the notification');

    await expect(
      db.transaction(async (tx) => {
        tx.notify(ch);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    db.notify(ch); // on the database handle: at once
    await until(() => heard.length === 2, 'the second notification');
    await sleep(50);
    expect(heard).toHaveLength(2);
    await stop();
  });

  it.skipIf(!onPostgres)('another process hears it through PostgreSQL, and the sender hears its own once', async () => {
    const isolated = await database();
    const [a, b] = [await isolated.open(), await isolated.open()];
    const ch = channel();
    const byA: string[] = [];
    const byB: string[] = [];
    const stopA = await a.listen(ch, (p) => byA.push(p));
    const stopB = await b.listen(ch, (p) => byB.push(p));
    await a.transaction(async (tx) => tx.notify(ch));
    await until(() => byB.length === 1, 'the other process');
    await sleep(100); // an echo of its own NOTIFY would have reached A by now
    expect(byA).toHaveLength(1);
    expect(byB).toHaveLength(1);
    await Promise.all([stopA(), stopB()]);
  });
});

describe('CommitNotifier', () => {
  it('sends one NOTIFY at a time per channel, coalescing the commits meanwhile, and none is left unsent', async () => {
    const sent: string[] = [];
    const notifier = new CommitNotifier(async (ch) => {
      sent.push(ch);
      await sleep(5);
    });
    for (let i = 0; i < 100; i++) notifier.publish('a');
    notifier.publish('b');
    await notifier.flush();
    expect(sent.filter((c) => c === 'a')).toHaveLength(2); // the first, then one for all the others
    expect(sent.filter((c) => c === 'b')).toHaveLength(1);
    notifier.publish('a');
    await notifier.flush();
    expect(sent.filter((c) => c === 'a')).toHaveLength(3);
  });

  it('skips its own echo and passes on what other processes sent', async () => {
    const notifier = new CommitNotifier();
    const heard: string[] = [];
    notifier.listen('c', (p) => heard.push(p));
    notifier.receive('c', notifier.sender);
    notifier.receive('c', 'another-process');
    await sleep(10);
    expect(heard).toEqual(['another-process']);
  });
});
