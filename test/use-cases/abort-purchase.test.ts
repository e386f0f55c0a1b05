import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedMerchant } from '../../src/accounts/accounts.ts';
import { parsePublicId } from '../../src/domain/ids.ts';
import { findPurchase } from '../../src/purchases/purchase-repository.ts';
import { applyMove } from '../../src/purchases/transitions.ts';
import { abortPurchase } from '../../src/use-cases/checkout/abort-purchase.ts';
import { createPurchase } from '../../src/use-cases/checkout/create-purchase.ts';
import { twoMerchants } from '../helpers/api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let a: CreatedMerchant;
let b: CreatedMerchant;
beforeAll(async () => {
  app = await startTestApp();
  [a, b] = (await twoMerchants(app, ['Shop A', 'Shop B'])).map((c) => c.merchant) as [CreatedMerchant, CreatedMerchant];
});
afterAll(() => app.close());

const accountOf = (m: CreatedMerchant) => parsePublicId('acc', m.account_id)!;

async function newPurchase(m: CreatedMerchant, language = 'en_GB'): Promise<string> {
  const outcome = await createPurchase(app.services, {
    accountId: accountOf(m),
    title: 'Weekend in Lisbon',
    amountCents: 30_000,
    language,
    client: { email: 'leader@example.com' },
  });
  if (outcome.kind !== 'created') throw new Error(`purchase not created: ${outcome.kind}`);
  return outcome.purchase.id;
}

const abort = (m: CreatedMerchant, purchaseId: string) => abortPurchase(app.services, { accountId: accountOf(m), purchaseId });
const stateOf = async (m: CreatedMerchant, id: string) => (await findPurchase(app.services.db, accountOf(m), id))?.state;

describe('abortPurchase', () => {
  it('aborts a CREATED purchase', async () => {
    const id = await newPurchase(a);
    expect(await abort(a, id)).toEqual({ kind: 'aborted', purchaseId: id });
    expect(await stateOf(a, id)).toBe('ABORTED');
  });

  it('answers already_aborted the second time, with the purchase language for the refusal', async () => {
    const id = await newPurchase(a, 'fr_FR');
    await abort(a, id);
    expect(await abort(a, id)).toEqual({ kind: 'already_aborted', language: 'fr_FR' });
  });

  it('answers non_abortable once the leader has paid, and leaves the purchase as it was', async () => {
    const id = await newPurchase(a);
    await app.services.db.transaction((tx) => applyMove(tx, app.services.clock, accountOf(a), id, 'leaderProcessed'));
    expect(await abort(a, id)).toEqual({ kind: 'non_abortable', state: 'LEADER_PROCESSED', language: 'en_GB' });
    expect(await stateOf(a, id)).toBe('LEADER_PROCESSED');
  });

  it("answers not_found for another merchant's purchase, and an unknown or malformed id, leaving theirs untouched", async () => {
    const theirs = await newPurchase(b);
    for (const id of [theirs, '00000000-0000-4000-8000-000000000000', 'nope']) expect(await abort(a, id)).toEqual({ kind: 'not_found' });
    expect(await stateOf(b, theirs)).toBe('CREATED');
  });

  it('of concurrent aborts of one purchase, exactly one is aborted, the others already_aborted', async () => {
    const id = await newPurchase(a);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => abort(a, id)));
    expect(outcomes.filter((o) => o.kind === 'aborted')).toHaveLength(1);
    expect(outcomes.filter((o) => o.kind === 'already_aborted')).toHaveLength(4);
    const { rows } = await app.services.db.query<{ n: number }>(
      "SELECT count(*) AS n FROM purchase_events WHERE account_id = $1 AND purchase_id = $2 AND type = 'purchase.aborted'",
      [accountOf(a), id],
    );
    expect(rows[0]!.n).toBe(1);
  });
});
