/** `chipin serve` on the measured database, timed from spawn to `/readyz` answering 200. */
import { LOOPBACK, freePort, spawnTs, type Child } from '../children.ts';
import { sleep, withStatementTimeout } from './format.ts';
import { READY_TIMEOUT_MS } from './settings.ts';
import { chipinEnv, type Target } from './target.ts';

/** Polls `url` every 25 ms until it answers 200 (bounded; fails if the child exits). */
async function waitReady(child: Child, url: string): Promise<void> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  let exitCode: number | null | undefined;
  void child.exited.then((c) => (exitCode = c));
  while (performance.now() < deadline) {
    if (exitCode !== undefined) throw new Error(`chipin exited (code ${exitCode}) before ${url} answered:\n${child.stderrTail()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(25);
  }
  throw new Error(`chipin: ${url} did not answer 200 within ${READY_TIMEOUT_MS / 1000} s:\n${child.stderrTail()}`);
}

/** Starts `chipin serve` and answers its URL and the time from spawn to `/readyz` answering 200. */
export async function startServer(target: Target): Promise<{ child: Child; url: string; startMs: number }> {
  const port = await freePort();
  const url = `http://${LOOPBACK}:${port}`;
  const t0 = performance.now();
  const child = spawnTs('chipin', 'src/main.ts', ['serve'], { ...chipinEnv(target), DATABASE_URL: withStatementTimeout(target.url), PORT: String(port) });
  await waitReady(child, `${url}/readyz`);
  return { child, url, startMs: performance.now() - t0 };
}
