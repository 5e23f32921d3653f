import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPool } from '../../src/platform/db/connect.js';
import { useTestEnvironment } from '../helpers/harness.js';

/*
 * `timestamp` columns (portal_payments.created_at) hold UTC whatever zone the process runs in:
 * the expiry job compares them with the clock, and history groups them by the tenant's day.
 * The integration project runs its files one after another in a few shared processes (vitest's
 * isolate: false): TZ is set for this file only and put back as it was when it ends.
 */

const env = useTestEnvironment();
const zone = process.env.TZ;

beforeAll(() => {
  process.env.TZ = 'America/Argentina/Buenos_Aires';
});

afterAll(() => {
  // Assigning undefined would set the string "undefined".
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

it('a Date written to and read from a timestamp column is the same instant, in UTC', async () => {
  const instant = new Date('2026-11-21T02:30:00.000Z');
  expect(instant.getHours()).toBe(23); // the process really is at UTC-3
  const pool = createPool(env.systemUrl, { max: 1 });
  try {
    const { rows } = await pool.query<{ stored: string; back: Date; earlier: boolean }>(
      `SELECT $1::timestamp::text AS stored, $1::timestamp AS back,
              $1::timestamp < now()::timestamp AS earlier`,
      [instant],
    );
    expect(rows[0]?.stored).toBe('2026-11-21 02:30:00');
    expect(rows[0]?.back.toISOString()).toBe(instant.toISOString());
    expect(rows[0]?.earlier).toBe(true);
  } finally {
    await pool.end();
  }
});
