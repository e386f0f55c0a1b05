import { setFlagsFromString } from 'node:v8';
import { createApp } from '../app.ts';
import type { Config } from '../config.ts';
import { demoBanner, demoReminder, ensureDemoMerchant } from '../sandbox/demo-merchant.ts';

/** A port that cannot be listened on (taken, not allowed, not this machine's): printed as one line. */
export class ListenError extends Error {}

/** `chipin serve`: the HTTP service until SIGTERM or SIGINT (docs/deployment.md#draining). */
export async function serve(config: Config): Promise<void> {
  // V8 otherwise learns, from pages of query rows all alive at a young-generation collection, to
  // allocate every later row of that shape straight into the old generation: the RSS then grows by
  // tens of MB through a CSV export until a full collection. Set before the service allocates
  // anything of its own (docs/performance.md#the-csv-export).
  setFlagsFromString('--no-allocation-site-pretenuring');
  const app = await createApp(config);
  const { server, logger } = app;
  // Before listening, so that a ready service always has it; printed once the port is ours.
  const demo = await ensureDemoMerchant(config, app.services.accounts);
  try {
    await server.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new ListenError(`cannot listen on ${config.host}:${config.port} (${code}); set PORT or HOST to a free address`);
    }
    throw err;
  }
  if (app.metricsListener && config.metricsListener) {
    const { port, host } = config.metricsListener;
    try {
      await app.metricsListener.listen();
    } catch (err) {
      await app.close();
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
        throw new ListenError(`cannot listen for /metrics on ${host}:${port} (${code}); set METRICS_PORT or METRICS_HOST to a free address`);
      }
      throw err;
    }
    logger.info({ metrics: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics` }, 'metrics listener ready');
  }
  const reminder = demo ? undefined : demoReminder(config);
  if (demo) process.stdout.write(demoBanner(config, demo) + '\n');
  else if (reminder) process.stdout.write(reminder + '\n');

  // The first signal drains (readiness fails while requests are still served, SHUTDOWN_DRAIN_MS),
  // then closes; a second one skips what is left of the drain (docs/deployment.md#draining).
  let stopping = false;
  let skipDrain: (() => void) | undefined;
  const stop = (signal: string) => {
    if (stopping) {
      skipDrain?.();
      return;
    }
    stopping = true;
    const drainMs = config.shutdownDrainMs ?? 0;
    if (drainMs > 0) logger.info({ signal, drainMs }, 'draining: /readyz answers 503 while requests are still served');
    Promise.race([app.drain(), new Promise<void>((resolve) => (skipDrain = resolve))])
      .then(() => {
        logger.info({ signal }, 'shutting down: finishing in-flight requests');
        return app.close();
      })
      .then(
        () => {
          logger.info('database closed, bye');
          process.exit(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'unclean shutdown');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  logger.info({ url: config.publicUrl, env: config.env, database: app.services.db.kind }, 'chipin ready');
}
