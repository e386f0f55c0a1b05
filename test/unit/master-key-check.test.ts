import { afterEach, describe, expect, it } from 'vitest';
import { MasterKeyMismatchError, verifyMasterKey } from '../../src/crypto/master-key-check.ts';
import { isolatedDatabase, newMerchant, startTestApp, type IsolatedDatabase } from '../helpers/app.ts';

const KEY_A = Buffer.alloc(32, 0xa1);
const KEY_B = Buffer.alloc(32, 0xb2);
const FROM_ENV = 'the MASTER_KEY environment variable';

let isolated: IsolatedDatabase | undefined;
afterEach(async () => {
  await isolated?.dispose();
  isolated = undefined;
});

/** An app with `masterKey` on the shared database, closed at once; the error if it refused to start. */
async function startWith(masterKey: Buffer, masterKeySource = FROM_ENV): Promise<Error | undefined> {
  try {
    const app = await startTestApp({ masterKey, masterKeySource, jobPollIntervalMs: 0 }, { db: isolated!.open(), shareDatabase: true });
    await app.close();
    return undefined;
  } catch (err) {
    return err as Error;
  }
}

function expectRefused(err: Error | undefined, source: string): void {
  expect(err).toBeInstanceOf(MasterKeyMismatchError);
  expect(err!.message).toContain(`the master key from ${source} is not the key this database was set up with`);
  for (const key of [KEY_A, KEY_B]) {
    expect(err!.message).not.toContain(key.toString('hex'));
    expect(err!.message).not.toContain(key.toString('base64'));
  }
}

describe('the master key check value', () => {
  it('a service started with another master key than the one the database was set up with refuses to start, naming where its key came from', async () => {
    isolated = await isolatedDatabase();
    expect(await startWith(KEY_A)).toBeUndefined();
    expectRefused(await startWith(KEY_B), FROM_ENV);
    expectRefused(await startWith(KEY_B, 'the file /srv/chipin/master.key (MASTER_KEY unset)'), 'the file /srv/chipin/master.key (MASTER_KEY unset)');
    expect(await startWith(KEY_A)).toBeUndefined();
  });

  it('a database holding sealed secrets but no check value (set up before it existed) takes the key that opens them and refuses any other', async () => {
    isolated = await isolatedDatabase();
    const app = await startTestApp({ masterKey: KEY_A, jobPollIntervalMs: 0 }, { db: isolated.open(), shareDatabase: true });
    await newMerchant(app); // its offers' signing secrets, sealed under KEY_A
    await app.services.db.query('DELETE FROM master_key_check');
    await app.close();

    expectRefused(await startWith(KEY_B), FROM_ENV);
    expect(await startWith(KEY_A)).toBeUndefined();
    expectRefused(await startWith(KEY_B), FROM_ENV);
  });

  it('two processes starting at once on an empty database agree on one key: the other is refused', async () => {
    isolated = await isolatedDatabase();
    const [a, b] = [await isolated.open(), await isolated.open()];
    const outcomes = await Promise.allSettled([verifyMasterKey(a, KEY_A, FROM_ENV), verifyMasterKey(b, KEY_B, FROM_ENV)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expectRefused(refused.reason as Error, FROM_ENV);
    const winner = outcomes[0]!.status === 'fulfilled' ? KEY_A : KEY_B;
    await verifyMasterKey(a, winner, FROM_ENV);
    await verifyMasterKey(b, winner, FROM_ENV);
  });
});
