import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { bcryptPasswords } from '../../src/platform/security/passwords.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import {
  addAuthTenant,
  auditEvents,
  countingPasswords,
  loginBody,
  register,
  uniqueAddress,
} from '../helpers/auth.js';

const env = useTestEnvironment();
let tenant: TestTenant;
let app: FastifyInstance;
const passwords = countingPasswords(bcryptPasswords);

function attempt(password: string) {
  return app.inject({
    method: 'POST',
    url: '/portal/auth/login',
    payload: loginBody({ password }),
    // Distinct clients: the per-IP login limit must not be what stops the burst.
    remoteAddress: uniqueAddress(),
  });
}

async function lockState() {
  const [row] = await tenant.query<{ failed_login_attempts: number; locked_until: Date | null }>(
    'SELECT failed_login_attempts, locked_until FROM suc0001.portal_users WHERE cnro = 1',
  );
  if (!row) throw new Error('no user');
  return row;
}

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1);
  // The real bcrypt at cost 12: each comparison takes long enough for the burst to overlap.
  app = await env.app({}, { passwords });
  await register(app);
});

describe('login lockout under concurrency', () => {
  it('20 concurrent wrong passwords: locked, 5 comparisons and 5 login_failed, the rest login_locked; a right password in the burst after the fifth does not log in', async () => {
    const verificationsBefore = passwords.verifications;
    const wrong = Array.from({ length: 20 }, (_, n) => attempt(`Equivocada${n}`));

    // The right password joins the burst once five attempts are counted, while the wrong ones
    // are still being compared.
    for (let tries = 0; (await lockState()).failed_login_attempts < 5; tries += 1) {
      if (tries > 500) throw new Error('five attempts were never counted');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const right = await attempt('Secreta123');
    const answers = await Promise.all(wrong);

    expect(right.statusCode).toBe(403);
    expect(right.json()).toMatchObject({ success: false, code: 'ACCOUNT_LOCKED' });

    const statuses = answers.map((answer) => answer.statusCode).sort();
    expect(statuses.filter((status) => status === 401)).toHaveLength(4);
    expect(statuses.filter((status) => status === 403)).toHaveLength(16);

    const state = await lockState();
    expect(state.locked_until).not.toBeNull();
    expect(state.locked_until!.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);

    const events = await auditEvents(tenant);
    expect(events.filter((event) => event === 'login_failed')).toHaveLength(5);
    // The 5th failure's lock, the 15 refused without a comparison, and the right password.
    expect(events.filter((event) => event === 'login_locked')).toHaveLength(17);
    expect(events).not.toContain('login_success');
    // Only the five counted attempts ever reached bcrypt.
    expect(passwords.verifications - verificationsBefore).toBe(5);
  });
});
