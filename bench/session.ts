import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { createSessionVersions } from '../src/platform/auth/session-versions.js';
import { createKysely, createPool } from '../src/platform/db/connect.js';
import type { TenantDatabase } from '../src/platform/db/types.js';
import { benchTenant, type BenchEnvironment } from './environment.js';
import { measure } from './measure.js';

/**
 * What the session-version check (the guard refuses tokens of an ended session) adds to every
 * protected request. An A/B of two whole builds over HTTP moves by ±20% between runs on a shared
 * 2-core machine, far more than the check could cost, so the check is measured by itself: the
 * cached read every request makes, set against the CPU a GET /portal/deudas takes at the rate
 * measured in the same run, and the database read each user makes once per cache lifetime.
 */
export async function sessionVersionCost(
  environment: BenchEnvironment,
  portal: { url: string; token: string },
): Promise<void> {
  const pool = createPool(environment.tenantUrl, { max: 5 });
  const tenant = benchTenant(createKysely<TenantDatabase>(pool));
  const versions = await createSessionVersions({
    namespace: 'bench:',
    log: pino({ level: 'silent' }),
  });
  try {
    await versions.current(tenant, environment.portalUserId);
    const hits = 1_000_000;
    let started = process.hrtime.bigint();
    for (let n = 0; n < hits; n += 1) await versions.current(tenant, environment.portalUserId);
    const hitNs = Number(process.hrtime.bigint() - started) / hits;

    // Users this instance has not seen for the cache lifetime: one indexed read each.
    const misses = 2_000;
    started = process.hrtime.bigint();
    for (let n = 0; n < misses; n += 1) await versions.current(tenant, randomUUID());
    const missMs = Number(process.hrtime.bigint() - started) / misses / 1e6;

    const deudas = await measure('portal GET /portal/deudas', {
      url: `${portal.url}/portal/deudas`,
      headers: { authorization: `Bearer ${portal.token}` },
      durationSeconds: 5,
    });
    const rate = deudas.requestsPerSecond;
    // Each request's share of the two cores the process and PostgreSQL run on.
    const requestCpuUs = 2e6 / rate;
    const lines = [
      `\nSession-version check (guard), measured by itself`,
      `cached read, every protected request   ${(hitNs / 1000).toFixed(3)} µs`,
      `database read, once per user per 3 s   ${missMs.toFixed(3)} ms`,
      `GET /portal/deudas at ${rate.toFixed(0)} req/s: ${requestCpuUs.toFixed(0)} µs of CPU per request`,
      `cached read / request: ${((hitNs / 1000 / requestCpuUs) * 100).toFixed(3)}%`,
      // Many users: each one's first request in a cache lifetime reads the version once.
      `500 users active: at most ${(500 / 3).toFixed(0)} reads/s against ${rate.toFixed(0)} requests/s (one primary-key read per ${(rate / (500 / 3)).toFixed(1)} requests, ${missMs.toFixed(2)} ms each, on the pool)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await versions.close();
    await pool.end();
  }
}
