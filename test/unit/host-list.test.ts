/**
 * A database URL naming several hosts (src/db/host-list.ts): the reference topology's two
 * PgBouncers and two HAProxies (docs/deployment.md#two-of-each-in-front). The choice of host is
 * pure; on PostgreSQL, a pool whose first host refuses connects to the next one, each time.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { DOWN_MS, HostList, splitHosts } from '../../src/db/host-list.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { loadConfig } from '../../src/config.ts';
import { onPostgres } from '../helpers/database.ts';

describe('a database URL with several hosts', () => {
  it('is split libpq-style, user, database and parameters kept for each host', () => {
    expect(splitHosts('postgres://u:p@10.0.0.1:6432,10.0.0.2:6433/chipin?sslmode=require')).toEqual([
      'postgres://u:p@10.0.0.1:6432/chipin?sslmode=require',
      'postgres://u:p@10.0.0.2:6433/chipin?sslmode=require',
    ]);
    expect(splitHosts('postgres://u@db:5432/chipin')).toEqual(['postgres://u@db:5432/chipin']);
  });

  it('picks the first host not marked down, and the first host again once its mark ends', () => {
    let t = 1_000;
    const hosts = new HostList('postgres://u@a:1,b:2,c:3/d', () => t);
    expect(hosts.pick()).toBe(0);
    hosts.markDown(0);
    expect(hosts.pick()).toBe(1);
    expect(hosts.anotherUp(1)).toBe(true);
    hosts.markDown(1);
    hosts.markDown(2);
    // All down: the one whose mark ends first.
    expect(hosts.pick()).toBe(0);
    expect(hosts.anotherUp(0)).toBe(false);
    t += DOWN_MS;
    expect(hosts.pick()).toBe(0);
  });

  it('is accepted by the configuration, each host checked', () => {
    const env = { CHIPIN_ENV: 'sandbox', DATABASE_URL: 'postgres://u@127.0.0.1:6432,127.0.0.2:6432/chipin', DATA_DIR: '/tmp/chipin-host-list-test' };
    expect(loadConfig(env).databaseUrl).toBe(env.DATABASE_URL);
    expect(() => loadConfig({ ...env, DATABASE_URL: 'postgres://u@127.0.0.1:6432,127.0.0.2:port/chipin' })).toThrow(/DATABASE_URL/);
  });
});

describe.runIf(onPostgres)('a pool on two hosts, the first one refusing', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

  it('connects to the second host within the same query or transaction, every time', async () => {
    // A port that accepts and closes at once, as a pooler whose process died would refuse.
    const refusing = createServer((socket) => socket.destroy());
    servers.push(refusing);
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    const { port } = refusing.address() as { port: number };
    const real = new URL(process.env.DATABASE_URL!);
    const url = `postgres://${real.username}${real.password ? `:${real.password}` : ''}@127.0.0.1:${port},${real.host}${real.pathname}${real.search}`;
    const db = openPostgres(url, { max: 2 });
    try {
      for (let i = 0; i < 5; i++) expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1);
      await db.transaction(async (tx) => expect((await tx.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one).toBe(1));
    } finally {
      await db.close();
    }
  });
});
