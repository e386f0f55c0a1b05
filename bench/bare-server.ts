/**
 * Baseline: plain Fastify 5, logger off, no hooks, no plugins. What Node + Fastify alone cost on
 * this machine; every Chipin scenario is compared with one of these routes.
 *
 *   PORT=3001 npx tsx bench/bare-server.ts
 *
 * Add a baseline route here when a scenario needs its own (e.g. a bare POST with a JSON body).
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const port = Number(process.env.PORT ?? 3001);
const host = process.env.HOST ?? '127.0.0.1';

const app = Fastify({ logger: false });

app.get('/bare', async () => ({ status: 'ok', service: 'bare' }));

// The bare GET plus 25 µs of busy work: what a route that much slower costs in all. On a virtual
// machine the difference is more than the 25 µs, as the load generator, less busy, must be woken
// for more of the answers (docs/performance.md#what-limits-each-row). Informative only.
const SPIN_NS = 25_000n;
app.get('/bare/spin', async () => {
  const until = process.hrtime.bigint() + SPIN_NS;
  while (process.hrtime.bigint() < until);
  return { status: 'ok', service: 'bare' };
});

// What a validated JSON POST costs Fastify alone: the simulation's body shape and schema, a fixed
// answer. Informative only (no target compares with it): it shows the floor of a POST route.
app.post(
  '/bare/json',
  {
    schema: {
      body: {
        type: 'object',
        required: ['amount_cents'],
        additionalProperties: false,
        properties: { amount_cents: { type: 'integer', minimum: 1 }, created: { type: 'string', format: 'date' } },
      },
    },
  },
  async (request) => ({ amount_cents: (request.body as { amount_cents: number }).amount_cents, status: 'ok' }),
);

// Database baselines (with BARE_DATABASE_URL, i.e. BENCH_DATABASE_URL): one INSERT, and one
// primary-key SELECT, through a pg pool of the same size as Chipin's.
const dbUrl = process.env.BARE_DATABASE_URL;
if (dbUrl) {
  const pool = new pg.Pool({ connectionString: dbUrl, max: 10 });
  await pool.query(`CREATE TABLE IF NOT EXISTS bare_purchases (
    id uuid PRIMARY KEY, account_id uuid NOT NULL, title text NOT NULL, amount_cents bigint NOT NULL, created_at timestamptz NOT NULL)`);
  const seeded = randomUUID();
  await pool.query('INSERT INTO bare_purchases VALUES ($1, $2, $3, $4, now())', [seeded, randomUUID(), 'Seed', 100]);
  app.post('/bare/purchases', async (request, reply) => {
    const body = request.body as { title: string; amount: number };
    const { rows } = await pool.query('INSERT INTO bare_purchases VALUES ($1, $2, $3, $4, now()) RETURNING id', [randomUUID(), seeded, body.title, body.amount]);
    return reply.code(201).send(rows[0]);
  });
  app.get('/bare/purchases/:id', async (request) => {
    const { rows } = await pool.query('SELECT * FROM bare_purchases WHERE id = $1', [(request.params as { id: string }).id]);
    return rows[0];
  });
  app.get('/bare/seed', async () => ({ id: seeded }));

  // bench:lifecycle's baseline (bench/lifecycle/bare.ts): the least a correct payment service
  // writes, one row per money movement and one per event, each in its own transaction, into plain
  // tables with only a primary key.
  await pool.query(`CREATE TABLE IF NOT EXISTS bare_movements (
    id uuid PRIMARY KEY, purchase_id uuid NOT NULL, kind text NOT NULL, amount_cents bigint NOT NULL, created_at timestamptz NOT NULL)`);
  await pool.query(`CREATE TABLE IF NOT EXISTS bare_events (
    id uuid PRIMARY KEY, purchase_id uuid NOT NULL, name text NOT NULL, created_at timestamptz NOT NULL)`);
  app.post('/bare/movements', async (request, reply) => {
    const body = request.body as { purchase_id: string; kind: string; amount_cents: number };
    const { rows } = await pool.query('INSERT INTO bare_movements VALUES ($1, $2, $3, $4, now()) RETURNING id', [randomUUID(), body.purchase_id, body.kind, body.amount_cents]);
    return reply.code(201).send(rows[0]);
  });
  app.post('/bare/events', async (request, reply) => {
    const body = request.body as { purchase_id: string; name: string };
    const { rows } = await pool.query('INSERT INTO bare_events VALUES ($1, $2, $3, now()) RETURNING id', [randomUUID(), body.purchase_id, body.name]);
    return reply.code(201).send(rows[0]);
  });
  app.addHook('onClose', () => pool.end());
}

const stop = () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

await app.listen({ port, host });
