import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { addAuthTenant, bearer, fakeClock, login, twoCustomers, TEXTIL } from '../helpers/auth.js';
import { seedDebts } from './helpers.js';

// docs/api.md "Idempotency-Key" on POST /portal/cupones/generar.
const clock = fakeClock(new Date('2026-11-21T12:00:00Z'));
const env = useTestEnvironment();
let app: FastifyInstance;
let tenant: TestTenant;
let ana: string;
let textil: string;
let debtA: string;
let debtB: string;
let textilDebt: string;
let keyNumber = 0;

function newKey(): string {
  keyNumber += 1;
  return `generar-${keyNumber}-${Date.now()}`;
}

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1);
  [debtA = '', debtB = ''] = await seedDebts(tenant, 'suc0001', 1, [
    { nrocomp: '0001-00000001', saldo: '100.10' },
    { nrocomp: '0001-00000002', saldo: '200.20' },
  ]);
  [textilDebt = ''] = await seedDebts(tenant, 'suc0001', 2, [
    { nrocomp: '0001-00000003', saldo: '500.00' },
  ]);
  app = await env.app({}, { clock, perUserMax: 10_000 });
  ({ ana, textil } = await twoCustomers(app));
});

function generate(token: string, body: unknown, key: string | undefined, on = app) {
  return on.inject({
    method: 'POST',
    url: '/portal/cupones/generar',
    headers: { ...bearer(token), ...(key !== undefined && { 'idempotency-key': key }) },
    payload: body as object,
  });
}

async function couponCount(): Promise<number> {
  const [row] = await tenant.query<{ count: string }>(
    'SELECT count(*) FROM suc0001.ledger_cupones',
  );
  return Number(row?.count);
}

async function keyCount(): Promise<number> {
  const [row] = await tenant.query<{ count: string }>(
    'SELECT count(*) FROM public.portal_idempotency_keys',
  );
  return Number(row?.count);
}

const anaBody = () => ({ facturas: [{ id: debtA, monto: 10 }], total: 10 });

describe('Idempotency-Key on POST /portal/cupones/generar', () => {
  it('the same key and body replay the same coupon; one is created', async () => {
    const key = newKey();
    const before = await couponCount();
    const first = await generate(ana, anaBody(), key);
    expect(first.statusCode, first.body).toBe(200);
    const again = await generate(ana, anaBody(), key);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.json<{ data: { cupon_id: string } }>().data.cupon_id).toBe(
      first.json<{ data: { cupon_id: string } }>().data.cupon_id,
    );
    expect(await couponCount()).toBe(before + 1);
  });

  it('the same key with another body is 422 IDEMPOTENCY_KEY_REUSED and creates nothing', async () => {
    const key = newKey();
    expect((await generate(ana, anaBody(), key)).statusCode).toBe(200);
    const before = await couponCount();
    const keys = await keyCount();
    const other = await generate(ana, { facturas: [{ id: debtB, monto: 20 }], total: 20 }, key);
    expect(other.statusCode).toBe(422);
    expect(other.json()).toEqual({
      success: false,
      error: expect.any(String),
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(await couponCount()).toBe(before);
    expect(await keyCount()).toBe(keys);
  });

  it('another user with the same key gets their own coupon', async () => {
    const key = newKey();
    const mine = await generate(ana, anaBody(), key);
    const theirs = await generate(
      textil,
      { facturas: [{ id: textilDebt, monto: 10 }], total: 10 },
      key,
    );
    expect(theirs.statusCode, theirs.body).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body).not.toBe(mine.body);
  });

  it('a refused request (a total that is not the sum) is not kept: the same key runs again, and with the corrected body creates the coupon', async () => {
    const key = newKey();
    const body = { facturas: [{ id: debtA, monto: 10 }], total: 11 };
    const keysBefore = await keyCount();
    const couponsBefore = await couponCount();
    const first = await generate(ana, body, key);
    expect(first.statusCode).toBe(400);
    expect(await keyCount()).toBe(keysBefore);
    const again = await generate(ana, body, key);
    expect(again.statusCode).toBe(400);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await keyCount()).toBe(keysBefore);

    const corrected = await generate(ana, anaBody(), key);
    expect(corrected.statusCode, corrected.body).toBe(200);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
    const replayed = await generate(ana, anaBody(), key);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(corrected.body);
    expect(await keyCount()).toBe(keysBefore + 1);
    expect(await couponCount()).toBe(couponsBefore + 1);
  });

  it('20 concurrent requests with one key create one coupon; the others replay it or are 409', async () => {
    const key = newKey();
    const before = await couponCount();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => generate(ana, anaBody(), key)),
    );
    const ran = answers.filter(
      (answer) => answer.statusCode === 200 && answer.headers['idempotent-replayed'] === undefined,
    );
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer.statusCode === 200) expect(answer.body).toBe(ran[0]?.body);
      else expect(answer.json()).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
    }
    expect(await couponCount()).toBe(before + 1);
  });

  it('without the header each request creates a coupon, as before', async () => {
    const before = await couponCount();
    const keys = await keyCount();
    const first = await generate(ana, anaBody(), undefined);
    const second = await generate(ana, anaBody(), undefined);
    expect([first.statusCode, second.statusCode]).toEqual([200, 200]);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body).not.toBe(first.body);
    expect(await couponCount()).toBe(before + 2);
    expect(await keyCount()).toBe(keys);
  });

  it('a malformed key is 400 INVALID_REQUEST (the route’s validation code)', async () => {
    const before = await couponCount();
    for (const key of ['', 'x'.repeat(256)]) {
      const response = await generate(ana, anaBody(), key);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
    }
    expect(await couponCount()).toBe(before);
  });

  it('two app instances share the keys', async () => {
    const other = await env.app({}, { clock, perUserMax: 10_000 });
    try {
      const key = newKey();
      const before = await couponCount();
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          generate(ana, anaBody(), key, index % 2 === 0 ? app : other),
        ),
      );
      expect(answers.every((answer) => [200, 409].includes(answer.statusCode))).toBe(true);
      const replayed = await generate(ana, anaBody(), key, other);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(await couponCount()).toBe(before + 1);
    } finally {
      await other.close();
    }
  });

  it('a key older than 24 hours generates a new coupon', async () => {
    const key = newKey();
    const first = await generate(ana, anaBody(), key);
    expect(first.statusCode).toBe(200);
    clock.advance(24 * 60 * 60_000 + 1_000);
    ana = (await login(app)).accessToken;
    textil = (await login(app, TEXTIL)).accessToken;
    const before = await couponCount();
    const again = await generate(ana, anaBody(), key);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body).not.toBe(first.body);
    expect(await couponCount()).toBe(before + 1);
  });
});
