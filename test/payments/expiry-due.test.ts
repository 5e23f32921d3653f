import type { FastifyInstance } from 'fastify';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_EXPIRY_JOB } from '../../src/modules/payments/checkout/expiry.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';

const IDLE_TENANTS = 40;

const env = useTestEnvironment();
let app: FastifyInstance;
let boss: PgBoss;
let busy: TestTenant;
let idle: TestTenant;

beforeAll(async () => {
  busy = await env.addTenant({ id: 500, sucursales: [{ id: 1 }] });
  idle = await env.addTenant({ id: 501, sucursales: [{ id: 1 }] });
  // Many registered tenants without a checkout, each its own pool (the URL is the pool's key).
  for (let i = 1; i <= IDLE_TENANTS; i += 1) {
    await env.systemQuery('INSERT INTO tenants (id, nombre, database_url) VALUES ($1, $2, $3)', [
      600 + i,
      `Sin pagos ${i}`,
      `${idle.databaseUrl}?fallback_application_name=unused${i}`,
    ]);
  }
  app = await env.app();
  await app.ready();
  boss = new PgBoss({ connectionString: env.systemUrl, schema: 'pgboss', max: 1 });
  await boss.start();
});

afterAll(async () => {
  await boss.stop({ graceful: false });
});

async function runExpiry(): Promise<void> {
  await boss.send(CHECKOUT_EXPIRY_JOB, {});
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [row] = await env.systemQuery<{ open: number }>(
      `SELECT count(*)::int AS open FROM pgboss.job WHERE name = $1 AND state < 'completed'`,
      [CHECKOUT_EXPIRY_JOB],
    );
    if (row?.open === 0) return;
    if (Date.now() > deadline) throw new Error('the checkout-expiry job did not finish');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Tenant-pool connections open to a database; pools keep them idle well after a sweep. */
async function connectionsTo(tenant: TestTenant): Promise<number> {
  const [row] = await env.systemQuery<{ count: number }>(
    `SELECT count(*)::int AS count FROM pg_stat_activity
      WHERE application_name = 'portal-tenant' AND datname = $1`,
    [new URL(tenant.databaseUrl).pathname.slice(1)],
  );
  return row?.count ?? 0;
}

describe('checkout expiry visits only tenants with a checkout due', () => {
  it('a sweep over many registered tenants without checkouts opens no tenant connection', async () => {
    // The migration marks tenants registered before it; the first sweep settles those marks.
    await env.systemQuery('DELETE FROM portal_expiry_due');
    await runExpiry();
    expect(await connectionsTo(idle)).toBe(0);
    expect(await connectionsTo(busy)).toBe(0);
  });

  it('a due mark makes the sweep visit that tenant alone, and a visit finding nothing clears it', async () => {
    await env.systemQuery(
      `INSERT INTO portal_expiry_due (tenant_id, due_at) VALUES ($1, now() - interval '1 minute')`,
      [busy.id],
    );
    // A mark not due yet is left alone.
    await env.systemQuery(
      `INSERT INTO portal_expiry_due (tenant_id, due_at) VALUES ($1, now() + interval '1 hour')`,
      [idle.id],
    );
    await runExpiry();
    expect(await connectionsTo(busy)).toBeGreaterThan(0);
    expect(await connectionsTo(idle)).toBe(0);
    expect(await env.systemQuery('SELECT tenant_id FROM portal_expiry_due')).toEqual([
      { tenant_id: idle.id },
    ]);
  });
});
