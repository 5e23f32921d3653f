import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock } from '../helpers/auth.js';
import { systemClock } from '../../src/platform/clock.js';
import { createFiscalTables } from '../../src/platform/tenancy/fiscal-tables.js';
import { createTenantCalendar } from '../../src/platform/tenancy/today.js';
import { createTenantPools, type TenantPools } from '../../src/platform/tenancy/pools.js';
import type { TenantContext } from '../../src/platform/tenancy/tenancy.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';

const env = useTestEnvironment();
let pools: TenantPools;
let buenosAires: TestTenant;
let tokyo: TestTenant;

beforeAll(async () => {
  buenosAires = await env.addTenant({ id: 1, sucursales: [{ id: 1 }] });
  tokyo = await env.addTenant({
    id: 2,
    sucursales: [{ id: 1 }],
    ini: { 'sistema.zona_horaria': 'Asia/Tokyo' },
  });
  pools = createTenantPools({ maxPools: 2, maxConnections: 2, idleSeconds: 60 });
});

afterAll(async () => {
  await pools.close();
});

function context(tenant: TestTenant): TenantContext {
  return {
    tenantId: tenant.id,
    tenantName: 'T',
    sucursalId: 1,
    sucursalName: 'S',
    customerSchema: 'suc0001',
    db: pools.get(tenant.databaseUrl),
    fiscalTables: createFiscalTables(systemClock),
  };
}

describe("a tenant's today (docs/decisions.md #6)", () => {
  it('turns at midnight in each tenant’s zone, to the second, however often it is asked', async () => {
    const clock = fakeClock(new Date('2026-03-10T02:59:58Z'));
    const calendar = createTenantCalendar(clock);
    const ask = async (tenant: TestTenant) => calendar.today(context(tenant));

    // 23:59:58 in Buenos Aires (UTC-3), 11:59:58 in Tokyo (UTC+9).
    expect(await ask(buenosAires)).toBe('2026-03-09');
    expect(await ask(tokyo)).toBe('2026-03-10');
    clock.set(new Date('2026-03-10T02:59:59.999Z'));
    expect(await ask(buenosAires)).toBe('2026-03-09');
    clock.set(new Date('2026-03-10T03:00:00Z'));
    expect(await ask(buenosAires)).toBe('2026-03-10');
    expect(await ask(tokyo)).toBe('2026-03-10');
    clock.set(new Date('2026-03-10T14:59:59Z'));
    expect(await ask(tokyo)).toBe('2026-03-10');
    clock.set(new Date('2026-03-10T15:00:00Z'));
    expect(await ask(tokyo)).toBe('2026-03-11');
    expect(await ask(buenosAires)).toBe('2026-03-10');
    // A clock that goes back (tests, a corrected server clock) is answered for its own instant.
    clock.set(new Date('2026-03-10T02:00:00Z'));
    expect(await ask(buenosAires)).toBe('2026-03-09');
  });
});
