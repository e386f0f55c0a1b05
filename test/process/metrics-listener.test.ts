/**
 * `chipin serve` with METRICS_PORT (docs/deployment.md#metrics-and-alerts): the second listener
 * serves the metrics, the main one answers 404 there, and SIGTERM closes both.
 */
import { connect, createServer } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanUp, cliEnv, freePort, jsonLines, killAll, PROCESS_TEST_MS, runCli, startServe, stopServe, tempDataDir } from './harness.ts';

afterAll(cleanUp);
afterEach(killAll);

/** Whether a new TCP connection to the loopback port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(port, '127.0.0.1');
    probe.once('connect', () => {
      probe.destroy();
      resolve(false);
    });
    probe.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

describe('METRICS_PORT', () => {
  it(
    'serves /metrics on its own port only, logs where, and closes with the main listener on SIGTERM (exit 0)',
    async () => {
      const metricsPort = await freePort();
      const s = await startServe(tempDataDir(), { METRICS_PORT: String(metricsPort) });
      const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/^# HELP chipin_job_oldest_due_age_seconds /m);
      const main = await fetch(`${s.url}/metrics`);
      expect(main.status).toBe(404);
      await main.arrayBuffer();
      expect(jsonLines(s.proc.stdout).find((l) => l.msg === 'metrics listener ready')).toMatchObject({ metrics: `http://127.0.0.1:${metricsPort}/metrics` });
      expect((await stopServe(s)).code, s.proc.output).toBe(0);
      expect(await refused(metricsPort)).toBe(true);
      expect(await refused(s.port)).toBe(true);
    },
    PROCESS_TEST_MS,
  );

  it(
    'a METRICS_PORT already taken stops the start with one line naming METRICS_PORT',
    async () => {
      const taken = await freePort();
      const holder = createServer().listen(taken, '127.0.0.1');
      await new Promise((r) => holder.once('listening', r));
      try {
        const r = await runCli(['serve'], cliEnv(tempDataDir(), { PORT: String(await freePort()), METRICS_PORT: String(taken) }));
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toBe(`chipin: cannot listen for /metrics on 127.0.0.1:${taken} (EADDRINUSE); set METRICS_PORT or METRICS_HOST to a free address\n`);
      } finally {
        holder.close();
      }
    },
    PROCESS_TEST_MS,
  );
});
