/**
 * README.md's walkthrough ("A first call"), run as written: the ```sh blocks between its two
 * markers, in order, as one bash script (`-euo pipefail`; every call is `curl -fsS`, so a refused
 * call stops it), in a fresh working directory whose `data/` is the DATA_DIR of a real
 * `chipin serve` (sandbox, embedded database, a free port). The only change made to the text is the
 * service's address, `http://127.0.0.1:3000` (set once, as `BASE` in the first block), becoming that port's. A README that drifts from the
 * API fails here (docs/testing.md, "What runs where").
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, PROCESS_TEST_MS, ROOT, startServe, tempDataDir, withMigratedDatabase, type Served } from '../process/harness.ts';

const START = '<!-- walkthrough: run by test/docs/readme-walkthrough.test.ts -->';
const END = '<!-- end of walkthrough -->';
const BASE = 'http://127.0.0.1:3000';
/** A hang guard for the script (about 2 s here alone): not a timing assertion. */
const SCRIPT_MS = 90_000;

/** The ```sh blocks between the markers, in order, as written. */
function walkthroughBlocks(markdown: string): string[] {
  const from = markdown.indexOf(START);
  const to = markdown.indexOf(END);
  if (from < 0 || to < from || markdown.indexOf(START, from + 1) >= 0) throw new Error(`README.md needs one "${START}" … "${END}" pair`);
  return [...markdown.slice(from, to).matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

function runBash(script: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // Its own process group: the webhook receiver the script starts in the background goes with it.
    const child = spawn('bash', ['-euo', 'pipefail', script], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      output += `\n[killed after ${SCRIPT_MS} ms]`;
      killGroup();
    }, SCRIPT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      killGroup();
      resolve({ code, output });
    });
  });
}

describe("README.md's walkthrough", () => {
  const blocks = walkthroughBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  let work: string;
  let served: Served;

  beforeAll(async () => {
    work = tempDataDir({ empty: true });
    mkdirSync(join(work, 'data'));
    withMigratedDatabase(join(work, 'data'));
    served = await startServe(join(work, 'data'), { LOG_LEVEL: 'warn' });
  }, PROCESS_TEST_MS);

  afterAll(cleanUp);

  it('is marked in the README and calls the service at the address it sets once, as BASE in its first block (one line to change for another port)', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(blocks[0]).toMatch(/^BASE=http:\/\/127\.0\.0\.1:3000 /m);
    // Outside comments (which show answers), the address is typed nowhere else: every call uses $BASE.
    const code = blocks.flatMap((b) => b.split('\n')).filter((line) => !line.trimStart().startsWith('#'));
    expect(code.filter((line) => line.includes(BASE))).toEqual([expect.stringMatching(/^BASE=/)]);
    expect(code.filter((line) => line.includes('$BASE/')).length).toBeGreaterThanOrEqual(10);
  });

  it(
    'runs as written against a fresh sandbox, to a paid pot, a friend paid and a partial refund, and ends with the webhook removed before its receiver stops',
    async () => {
      const script = blocks.join('\n').replaceAll(BASE, served.url);
      const file = join(work, 'walkthrough.sh');
      writeFileSync(file, script);
      const { code, output } = await runBash(file, work);
      expect(code, output).toBe(0);
      const demo = JSON.parse(readFileSync(join(work, 'data', 'demo-merchant.json'), 'utf8')) as { email: string; password: string };
      expect(output).toContain('"delivered":true'); // the webhook's test event reached the receiver
      expect(output).toMatch(/"purchase_uid":"pur_[0-9a-f-]{36}","url":"http:\/\/127\.0\.0\.1:\d+\/pay\/pur_/); // Token API
      expect(output).toMatch(/^\{"id":"[0-9a-f-]{36}","payment_url":.*"state":"INITIALIZED"/m); // Merchant API v1
      expect(output).toContain('leader paid: LEADER_PROCESSED | ann@example.com invited, +33612345678 invited');
      expect(output).toMatch(/^email to ann@example\.com: /m);
      expect(output).toContain('friend paid: ann@example.com paid, +33612345678 invited');
      expect(output).toContain('after the deadline: SUCCESSFUL | 1 of 2 friends paid');
      expect(output).toContain('refund succeeded: 5000 = leader 3333 + pledger 1667');
      // It ends by removing the webhook before its receiver stops: no event goes to a closed port, nothing retries for a day.
      expect(output).toMatch(/^webhook removed; pending deliveries cancelled: \d+$/m);
      const hook = await fetch(`${served.url}/api/backoffice/webhook`, { headers: { authorization: `Basic ${Buffer.from(`${demo.email}:${demo.password}`).toString('base64')}` } });
      expect(hook.status).toBe(404);
    },
    SCRIPT_MS + 30_000,
  );
});
