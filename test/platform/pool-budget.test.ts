import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenantPools } from '../../src/platform/tenancy/pools.js';
import { requestedTenant } from '../../src/platform/tenancy/requested-tenant.js';
import { TenantIdsBody } from '../../contract/envelope.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { outsideApi } from '../../src/platform/http/route-doors.js';

const TENANTS = 6;
const MAX_POOLS = 2;
const MAX_CONNECTIONS = 4;

const env = useTestEnvironment();
let tenants: TestTenant[];

beforeAll(async () => {
  tenants = [];
  for (let i = 1; i <= TENANTS; i += 1) {
    tenants.push(await env.addTenant({ id: 300 + i, sucursales: [{ id: 1 }] }));
  }
});

const databases = () => tenants.map((tenant) => new URL(tenant.databaseUrl).pathname.slice(1));

/** Real connections of the tenant pools to this file's databases, as the server sees them. */
async function tenantConnections(): Promise<number> {
  const [row] = await env.systemQuery<{ count: number }>(
    `SELECT count(*)::int AS count FROM pg_stat_activity
      WHERE application_name = 'portal-tenant' AND datname = ANY($1)`,
    [databases()],
  );
  return row?.count ?? 0;
}

/** Samples the connection count until `work` settles; answers the highest seen. */
async function peakDuring(work: Promise<unknown>): Promise<number> {
  let done = false;
  let peak = 0;
  const sampler = (async () => {
    while (!done) {
      peak = Math.max(peak, await tenantConnections());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    await work;
  } finally {
    done = true;
    await sampler;
  }
  return Math.max(peak, await tenantConnections());
}

async function inBatches<T>(jobs: (() => Promise<T>)[], concurrency: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < jobs.length) {
        const job = jobs[next];
        next += 1;
        if (job) results.push(await job());
      }
    }),
  );
  return results;
}

/** A route that holds its tenant connection a little while, so requests overlap. */
function addSlowProbe(app: FastifyInstance): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/portal/probe/slow',
    {
      schema: { body: Type.Object(TenantIdsBody, { additionalProperties: false }) },
      config: outsideApi('a test’s probe route'),
    },
    async (request) => {
      const ids = requestedTenant(request, request.body);
      const tenant = await app.tenancy.resolve(ids.tenantId, ids.sucursalId);
      await sql`SELECT pg_sleep(0.03)`.execute(tenant.db);
      return { success: true };
    },
  );
}

describe('tenant connection budget', () => {
  it('requests to more tenants than pools all answer 200 and never exceed the connections cap', async () => {
    const app = await env.app({
      PORTAL_TENANT_POOLS_MAX: String(MAX_POOLS),
      PORTAL_TENANT_CONNECTIONS_MAX: String(MAX_CONNECTIONS),
    });
    addSlowProbe(app);
    await app.ready();
    // Every tenant several times, interleaved, so pools are evicted while others still work.
    const jobs = Array.from({ length: TENANTS * 6 }, (_, i) => async () => {
      const tenant = tenants[i % TENANTS];
      const response = await app.inject({
        method: 'POST',
        url: '/portal/probe/slow',
        payload: { tenant_id: tenant?.id, sucursal_id: 1 },
      });
      return response.statusCode;
    });
    let statuses: number[] = [];
    const peak = await peakDuring(
      inBatches(jobs, 10).then((result) => {
        statuses = result;
      }),
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(MAX_CONNECTIONS);
  });

  it('a pool evicted while busy keeps serving its query and its connections count against the cap', async () => {
    const pools = createTenantPools({
      maxPools: MAX_POOLS,
      maxConnections: MAX_CONNECTIONS,
      idleSeconds: 60,
      acquireTimeoutMs: 10_000,
    });
    try {
      const work = Array.from({ length: 40 }, (_, i) => async () => {
        const url = tenants[i % TENANTS]?.databaseUrl ?? '';
        const db = pools.get(url);
        // Two queries on the same handle with a pause between: the pool may be evicted meanwhile.
        await sql`SELECT pg_sleep(0.01)`.execute(db);
        await new Promise((resolve) => setTimeout(resolve, 5));
        const rows = await db.selectFrom('sucursales').select('id').execute();
        expect(pools.stats().connections).toBeLessThanOrEqual(MAX_CONNECTIONS);
        return rows.length;
      });
      let counts: number[] = [];
      const peak = await peakDuring(
        inBatches(work, 12).then((result) => {
          counts = result;
        }),
      );
      expect(counts.every((count) => count === 1)).toBe(true);
      expect(peak).toBeLessThanOrEqual(MAX_CONNECTIONS);
      expect(pools.size()).toBeLessThanOrEqual(MAX_POOLS);
    } finally {
      await pools.close();
    }
    expect(pools.stats().connections).toBe(0);
  });

  it('one busy database uses up to its PORTAL_TENANT_POOL_SIZE, never above the budget', async () => {
    const perDatabase = async (connectionsPerPool: number, maxConnections: number) => {
      const pools = createTenantPools({
        maxPools: 4,
        maxConnections,
        connectionsPerPool,
        idleSeconds: 60,
      });
      const [first, second] = tenants;
      try {
        // Twelve slow queries at once on one database, then on two. Slow enough that every
        // connection is open before the first query ends, even on a loaded machine (at 0.15 s
        // a run under a profiler saw a peak of 7 of the 8).
        const load = (urls: string[]) =>
          Promise.all(
            Array.from({ length: 12 }, (_, i) =>
              sql`SELECT pg_sleep(0.5)`.execute(pools.get(urls[i % urls.length] ?? '')),
            ),
          );
        const one = await peakDuring(load([first?.databaseUrl ?? '']));
        const two = await peakDuring(load([first?.databaseUrl ?? '', second?.databaseUrl ?? '']));
        return { one, two };
      } finally {
        await pools.close();
      }
    };
    // Five per database out of eight: one database reaches five, two together stop at eight.
    expect(await perDatabase(5, 8)).toEqual({ one: 5, two: 8 });
    // A pool size above the budget is held to the budget.
    expect((await perDatabase(10, 3)).one).toBe(3);
  });
});
