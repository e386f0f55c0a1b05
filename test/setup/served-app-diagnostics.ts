import { beforeEach } from 'vitest';
import { describeServedApps } from '../helpers/browser.ts';

// Setup file of the `browser` project: when a page test fails, what its app was doing goes to the
// output — the requests it had not answered, whether its database still answered, and its last
// log lines — so a page that never loaded can be told from a slow one (docs/testing.md#timeouts).
beforeEach((ctx) => {
  ctx.onTestFailed(async () => {
    const text = await describeServedApps();
    if (text) console.error(`${ctx.task.name}\n${text}`);
  });
});
