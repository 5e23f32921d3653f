import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { TimerClock } from '../../src/platform/clock.js';
import type { PasswordHasher } from '../../src/platform/security/passwords.js';
import type { TestEnvironment, TestTenant } from './harness.js';
import { quickPasswords } from './passwords.js';

export const PASSWORD = 'Secreta123';
export const ORIGIN = 'https://portal.example.com';

/**
 * A clock the test moves by hand (lock expiry, code expiry, token expiry, idle tenant pools):
 * moving it runs, in order, what waits on it (`after`) and has come due.
 */
export function fakeClock(start = new Date('2026-11-21T12:00:00Z')): TimerClock & {
  advance(ms: number): void;
  set(date: Date): void;
} {
  let current = start.getTime();
  const waiting = new Set<{ due: number; callback: () => void }>();
  const runDue = () => {
    for (;;) {
      let next: { due: number; callback: () => void } | undefined;
      for (const timer of waiting) {
        if (timer.due <= current && (!next || timer.due < next.due)) next = timer;
      }
      if (!next) return;
      waiting.delete(next);
      next.callback();
    }
  };
  return {
    now: () => new Date(current),
    elapsedMs: () => current,
    after: (ms, callback) => {
      const timer = { due: current + ms, callback };
      waiting.add(timer);
      return () => waiting.delete(timer);
    },
    advance: (ms) => {
      current += ms;
      runDue();
    },
    set: (date) => {
      current = date.getTime();
      runDue();
    },
  };
}

/**
 * A real bcrypt hasher (`base`: the tests' quick one unless given), counting its calls: to see
 * that an unknown user costs one comparison, or a wrong reset code none.
 */
export function countingPasswords(
  base: PasswordHasher = quickPasswords,
): PasswordHasher & { verifications: number; hashes: number } {
  const counter = {
    verifications: 0,
    hashes: 0,
    unknownUserHash: base.unknownUserHash,
    hash(plain: string) {
      counter.hashes += 1;
      return base.hash(plain);
    },
    verify(plain: string, hash: string) {
      counter.verifications += 1;
      return base.verify(plain, hash);
    },
  };
  return counter;
}

export interface Customer {
  cnro: number;
  cnom: string;
  ccui: string;
}

/**
 * A tenant with sucursal 1 (`suc0001`) and sucursal 2 (`public`), and customers in both:
 * DNI 30111222 (1), CUIT 20-30111333-5 stored with dashes (2) in suc0001, DNI 40111222 (3) in public.
 */
export async function addAuthTenant(
  env: TestEnvironment,
  id: number,
  ini: Record<string, string> = {},
) {
  const tenant = await env.addTenant({
    id,
    nombre: `Empresa ${id}`,
    sucursales: [{ id: 1 }, { id: 2, centralizado: true }],
    ini,
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES
       (1, 'Ana Gómez', '30111222'), (2, 'Textil Sur SRL', '20-30111333-5')`,
  );
  await tenant.query(
    `INSERT INTO public.ordcon (cnro, cnom, ccui) VALUES (3, 'Beto Paz', '40111222')`,
  );
  return tenant;
}

export function registerBody(overrides: Record<string, unknown> = {}) {
  return {
    identifier: '30111222',
    identifier_type: 'dni',
    email: 'ana@example.com',
    password: PASSWORD,
    password_confirmation: PASSWORD,
    tenant_id: 1,
    sucursal_id: 1,
    ...overrides,
  };
}

export function loginBody(overrides: Record<string, unknown> = {}) {
  return {
    identifier: '30111222',
    identifier_type: 'dni',
    password: PASSWORD,
    tenant_id: 1,
    sucursal_id: 1,
    ...overrides,
  };
}

let addresses = 0;
/** A fresh client address, so set-up logins and registrations never meet the per-IP limits. */
export function uniqueAddress(): string {
  addresses += 1;
  return `172.16.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
}

export async function register(app: FastifyInstance, overrides: Record<string, unknown> = {}) {
  const response = await app.inject({
    method: 'POST',
    url: '/portal/auth/register',
    payload: registerBody(overrides),
    remoteAddress: uniqueAddress(),
  });
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.body}`);
  return response.json<{ data: { portal_user_id: string } }>().data;
}

export interface LoggedIn {
  accessToken: string;
  refreshToken: string;
  response: LightMyRequestResponse;
}

export async function login(
  app: FastifyInstance,
  overrides: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<LoggedIn> {
  const response = await app.inject({
    method: 'POST',
    url: '/portal/auth/login',
    payload: loginBody(overrides),
    headers,
    remoteAddress: uniqueAddress(),
  });
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.body}`);
  const { data } = response.json<{ data: { access_token: string; refresh_token: string } }>();
  return { accessToken: data.access_token, refreshToken: data.refresh_token, response };
}

export function bearer(token: string) {
  return { authorization: `Bearer ${token}` };
}

export async function auditEvents(tenant: TestTenant, portalUserId?: string) {
  const rows = await tenant.query<{ event: string }>(
    `SELECT event FROM public.portal_audit_log
      WHERE ($1::uuid IS NULL OR portal_user_id = $1::uuid) ORDER BY id`,
    [portalUserId ?? null],
  );
  return rows.map((row) => row.event);
}

/** Textil Sur SRL, addAuthTenant's customer 2 (CUIT stored with dashes) in sucursal 1. */
export const TEXTIL = { identifier: '20-30111333-5', identifier_type: 'cuit' } as const;

/**
 * Registers and logs in addAuthTenant's two customers of sucursal 1: Ana Gómez (the default
 * body) and Textil Sur, the "another customer" of ownership tests.
 */
export async function twoCustomers(app: FastifyInstance): Promise<{ ana: string; textil: string }> {
  await register(app);
  await register(app, { ...TEXTIL, email: 'textil@example.com' });
  return { ana: (await login(app)).accessToken, textil: (await login(app, TEXTIL)).accessToken };
}

export type CustomerIdentity = Record<string, unknown> & {
  identifier: string;
  identifier_type: string;
  tenant_id: number;
  sucursal_id: number;
};

/**
 * The access token of a customer of `app`, registering the customer on first use (with
 * `email`) and logging in once; later calls answer the same token.
 */
export function customerTokens(app: () => FastifyInstance) {
  const tokens = new Map<string, Promise<string>>();
  return (identity: CustomerIdentity, email: string): Promise<string> => {
    const key = `${identity.tenant_id}:${identity.sucursal_id}:${identity.identifier}`;
    let token = tokens.get(key);
    if (!token) {
      token = (async () => {
        await register(app(), { ...identity, email });
        return (await login(app(), identity)).accessToken;
      })();
      tokens.set(key, token);
    }
    return token;
  };
}
