import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicId } from '../../src/domain/ids.ts';
import { listPurchases } from '../../src/purchases/purchase-repository.ts';
import { createPurchase } from '../../src/use-cases/checkout/create-purchase.ts';
import { twoMerchants } from '../helpers/api.ts';
import { onPostgres, startTestApp, type TestApp } from '../helpers/app.ts';
import { planWithoutSeqScan, recordingSql, type Statement } from '../helpers/plans.ts';

// The list's state filter and the index that serves it (migration 050,
// docs/performance.md#the-state-filter): one state is checked in the index's entries, so a page
// reads from the table only the purchases it returns, in the index's order.

let app: TestApp;
let accountId: string;
beforeAll(async () => {
  app = await startTestApp();
  const [m] = await twoMerchants(app, ['Plan Shop', 'Other Shop']);
  accountId = parsePublicId('acc', m!.merchant.account_id)!;
  for (let i = 0; i < 3; i++) {
    await createPurchase(app.services, { accountId, title: `Trip ${i}`, amountCents: 10_000, language: 'en_GB', client: { email: 'leader@example.com' } });
  }
});
afterAll(() => app.close());

/** The plan of the statement `listPurchases` runs for one state, and how many purchases it found. */
async function planOf(state: 'CREATED'): Promise<{ plan: string; found: number }> {
  const seen: Statement[] = [];
  const db = app.services.db;
  const page = await listPurchases(recordingSql(db, seen), accountId, { states: [state], createdFrom: new Date(Date.now() - 30 * 86_400_000), limit: 21 });
  expect(seen).toHaveLength(1);
  return { plan: await planWithoutSeqScan(db, seen[0]!), found: page.length };
}

/** The lines of the plan's scan of the list index: the node and its conditions, up to the next node. */
function listIndexScan(plan: string): string {
  const lines = plan.split('\n');
  const start = lines.findIndex((l) => l.includes('Index Scan') && l.includes('purchases_account_created_state_idx'));
  expect(start, plan).toBeGreaterThanOrEqual(0);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => l.includes('->'));
  return [lines[start], ...(end < 0 ? rest : rest.slice(0, end))].join('\n');
}

describe(`the purchase list's state filter (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('checks one state in the list index, newest first without a sort, so no row of another state is read from the table', async () => {
    const { plan, found } = await planOf('CREATED');
    expect(found).toBe(3);
    const scan = listIndexScan(plan);
    expect(scan).toMatch(/Index Cond: .*state = /);
    expect(scan).not.toContain('Filter');
    expect(plan).not.toContain('Sort');
  });
});
