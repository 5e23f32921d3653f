import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';
import {
  findRequirements,
  isCiRun,
  judgeRequirements,
  type RunRequirements,
} from '../helpers/requirements.js';

/* What global set-up decides before any test runs (test/helpers/requirements.ts). */

const ALL_THERE: RunRequirements = {
  redis: { value: 'redis://127.0.0.1:6379' },
  openssl: { value: 'OpenSSL 3.0.0' },
  database: { value: 'postgres://postgres@127.0.0.1:5432/postgres' },
  qrTools: { value: 'pdftoppm version 22.12.0; zbarimg 0.23.92' },
};
const NOTHING_THERE: RunRequirements = {
  redis: { missing: 'REDIS_URL is not set' },
  openssl: { missing: 'openssl is not on the PATH' },
  database: { missing: 'TEST_DATABASE_URL is not set' },
  qrTools: { missing: 'pdftoppm (poppler-utils) and zbarimg (zbar-tools) not on the PATH' },
};

describe('what a test run requires', () => {
  it('CI is any value of CI but empty, false or 0', () => {
    for (const value of ['true', '1', 'yes', 'TRUE']) expect(isCiRun({ CI: value })).toBe(true);
    for (const value of [undefined, '', ' ', 'false', 'FALSE', '0']) {
      expect(isCiRun({ CI: value })).toBe(false);
    }
  });

  it('in CI, anything missing fails set-up, naming each missing thing', () => {
    expect(() => judgeRequirements(NOTHING_THERE, true)).toThrow(
      /REDIS_URL is not set[\s\S]*openssl is not on the PATH[\s\S]*TEST_DATABASE_URL is not set[\s\S]*zbarimg \(zbar-tools\)/,
    );
    expect(() =>
      judgeRequirements({ ...ALL_THERE, redis: { missing: 'Redis does not answer' } }, true),
    ).toThrow(/CI is set[\s\S]*Redis does not answer/);
    expect(judgeRequirements(ALL_THERE, true)).toBeUndefined();
  });

  it('outside CI, set-up says which tests it skips and why, and an embedded database is no skip', () => {
    const note = judgeRequirements(NOTHING_THERE, false);
    expect(note).toContain('the Redis-backed tests (REDIS_URL is not set)');
    expect(note).toContain('the openssl checks (openssl is not on the PATH)');
    expect(note).toContain('the invoice QR reads (pdftoppm (poppler-utils)');
    expect(note).not.toContain('TEST_DATABASE_URL');
    expect(judgeRequirements({ ...ALL_THERE, database: NOTHING_THERE.database }, false)).toBe(
      undefined,
    );
  });

  it('Redis counts only when REDIS_URL is set and answers PING', async () => {
    expect((await findRequirements({})).redis).toEqual({ missing: 'REDIS_URL is not set' });
    expect((await findRequirements({ REDIS_URL: '  ' })).redis).toEqual({
      missing: 'REDIS_URL is not set',
    });
    const closed = `redis://127.0.0.1:${await freePort()}`;
    const { redis } = await findRequirements({ REDIS_URL: closed });
    expect(redis).toEqual({
      missing: expect.stringContaining(`Redis at REDIS_URL (${closed}) does not answer PING`),
    });
  });
});
