import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { createIdempotencyPrune } from '../../src/platform/idempotency/prune.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import {
  addAuthTenant,
  bearer,
  fakeClock,
  login,
  ORIGIN,
  register,
  TEXTIL,
} from '../helpers/auth.js';
import { receiptIni } from '../helpers/payments.js';
import { sandboxIni } from '../helpers/sandbox.js';

// docs/api.md "Idempotency-Key" on POST /portal/pagos/iniciar. The sandbox gateway records each
// checkout it creates in portal_sandbox_payments: its rows count the gateway calls.
const CONFIG = {
  ...sandboxIni('sandbox-secret-for-tests'),
  ...receiptIni('webhook-token-for-tests', 'Banco Test CC 1'),
};

const clock = fakeClock(new Date('2026-11-21T12:00:00Z'));
const env = useTestEnvironment();
let app: FastifyInstance;
let tenant: TestTenant;
let ana: string;
let textil: string;
let keyNumber = 0;

interface Started {
  payment_id: number;
  redirect_url: string;
  payment_method: string;
}

/** A key no other test uses. */
function newKey(): string {
  keyNumber += 1;
  return `iniciar-${keyNumber}-${Date.now()}`;
}

async function seedDebts(cnro: number): Promise<void> {
  for (const [number, fecha, saldo] of [
    ['0001-00000001', '2026-01-10', '100.10'],
    ['0001-00000002', '2026-02-10', '200.20'],
    ['0001-00000003', '2026-03-10', '300.30'],
  ] as const) {
    await tenant.query(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       VALUES ($1, 'FAC', 'Factura B', $2, $3, $3, $4, $4)`,
      [cnro, `${cnro}${number}`, fecha, saldo],
    );
  }
}

async function logInBoth(on: FastifyInstance): Promise<void> {
  ana = (await login(on)).accessToken;
  textil = (await login(on, TEXTIL)).accessToken;
}

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1, CONFIG);
  await seedDebts(1);
  await seedDebts(2);
  app = await env.app({}, { clock, perUserMax: 10_000 });
  await register(app);
  await register(app, { ...TEXTIL, email: 'textil@example.com' });
  await logInBoth(app);
});

/** The oldest `count` debts of the user, as a client reading /portal/deudas would pay them. */
async function bodyFor(token: string, count = 1, skip = 0) {
  const list = await app.inject({ method: 'GET', url: '/portal/deudas', headers: bearer(token) });
  const items = list
    .json<{ data: { items: { id: string; debe: number }[] } }>()
    .data.items.slice(skip, skip + count);
  const total = items.reduce((acc, item) => acc + Math.round(item.debe * 100), 0) / 100;
  return { facturas: items.map((item) => ({ id: item.id, monto: item.debe })), total };
}

function start(
  token: string,
  body: unknown,
  key: string | undefined,
  options: { origin?: string; on?: FastifyInstance } = {},
) {
  return (options.on ?? app).inject({
    method: 'POST',
    url: '/portal/pagos/iniciar',
    headers: {
      ...bearer(token),
      origin: options.origin ?? ORIGIN,
      ...(key !== undefined && { 'idempotency-key': key }),
    },
    payload: body as object,
  });
}

async function cancel(token: string, paymentId: number) {
  const response = await app.inject({
    method: 'POST',
    url: '/portal/pagos/cancelar',
    headers: bearer(token),
    payload: { payment_id: paymentId },
  });
  expect(response.statusCode, response.body).toBe(200);
}

async function counts() {
  const [row] = await tenant.query<{ payments: string; checkouts: string; keys: string }>(
    `SELECT (SELECT count(*) FROM public.portal_payments) AS payments,
            (SELECT count(*) FROM public.portal_sandbox_payments) AS checkouts,
            (SELECT count(*) FROM public.portal_idempotency_keys) AS keys`,
  );
  return {
    payments: Number(row?.payments),
    checkouts: Number(row?.checkouts),
    keys: Number(row?.keys),
  };
}

function startedOf(response: LightMyRequestResponse): Started {
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: Started }>().data;
}

describe('Idempotency-Key on POST /portal/pagos/iniciar', () => {
  it('the same key and body replay the first answer: one payment, one gateway call', async () => {
    const key = newKey();
    const body = await bodyFor(ana);
    const before = await counts();
    const first = await start(ana, body, key);
    const started = startedOf(first);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await start(ana, body, key);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toMatch(/^application\/json/);
    expect(again.body).toBe(first.body);
    // The body's keys in another order are the same request.
    const reordered = await start(ana, { total: body.total, facturas: body.facturas }, key);
    expect(reordered.body).toBe(first.body);
    expect(await counts()).toEqual({
      payments: before.payments + 1,
      checkouts: before.checkouts + 1,
      keys: before.keys + 1,
    });
    await cancel(ana, started.payment_id);
  });

  it('the same key with another body, or another Origin, is 422 IDEMPOTENCY_KEY_REUSED and changes nothing', async () => {
    const key = newKey();
    const body = await bodyFor(ana);
    const started = startedOf(await start(ana, body, key));
    const before = await counts();
    const [stored] = await tenant.query('SELECT * FROM public.portal_idempotency_keys');
    const otherBody = await bodyFor(ana, 2);
    for (const response of [
      await start(ana, otherBody, key),
      await start(ana, body, key, { origin: 'https://other.example.com' }),
    ]) {
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        success: false,
        error: expect.any(String),
        code: 'IDEMPOTENCY_KEY_REUSED',
      });
      expect(response.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(await counts()).toEqual(before);
    expect(await tenant.query('SELECT * FROM public.portal_idempotency_keys')).toContainEqual(
      stored,
    );
    await cancel(ana, started.payment_id);
  });

  it('another user with the same key is independent', async () => {
    const key = newKey();
    const mine = startedOf(await start(ana, await bodyFor(ana), key));
    const before = await counts();
    const theirs = await start(textil, await bodyFor(textil), key);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    const theirStart = startedOf(theirs);
    expect(theirStart.payment_id).not.toBe(mine.payment_id);
    expect(await counts()).toEqual({
      payments: before.payments + 1,
      checkouts: before.checkouts + 1,
      keys: before.keys + 1,
    });
    await cancel(ana, mine.payment_id);
    await cancel(textil, theirStart.payment_id);
  });

  it('a refusal that changed nothing (422 PAYMENT_ORDER_VIOLATION) is not kept: no key row, the same key runs again, and the corrected body with it runs and is kept', async () => {
    const key = newKey();
    const skipping = await bodyFor(ana, 1, 1);
    const before = await counts();
    const first = await start(ana, skipping, key);
    expect(first.statusCode).toBe(422);
    expect(first.json()).toMatchObject({ code: 'PAYMENT_ORDER_VIOLATION' });
    expect(await counts()).toEqual(before);
    const again = await start(ana, skipping, key);
    expect(again.statusCode).toBe(422);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    // Made-up keys on refused requests fill nothing.
    for (let n = 0; n < 5; n += 1) {
      expect((await start(ana, skipping, newKey())).statusCode).toBe(422);
    }
    expect(await counts()).toEqual(before);

    // The same key with the corrected body is a new request: it runs, and its success is kept.
    const corrected = await start(ana, await bodyFor(ana), key);
    const started = startedOf(corrected);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
    const replayed = await start(ana, await bodyFor(ana), key);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(corrected.body);
    // The refused body with that key now meets the kept answer's body.
    const reused = await start(ana, skipping, key);
    expect(reused.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await counts()).toEqual({
      payments: before.payments + 1,
      checkouts: before.checkouts + 1,
      keys: before.keys + 1,
    });
    await cancel(ana, started.payment_id);
  });

  it('409 PAYMENT_IN_PROGRESS is not kept: once the other payment is cancelled, the same key and body run', async () => {
    const key = newKey();
    const body = await bodyFor(ana);
    const other = startedOf(await start(ana, body, undefined));
    const before = await counts();
    const refused = await start(ana, body, key);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'PAYMENT_IN_PROGRESS' });
    expect(await counts()).toEqual(before);

    await cancel(ana, other.payment_id);
    const retried = await start(ana, body, key);
    const started = startedOf(retried);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(started.payment_id).not.toBe(other.payment_id);
    expect((await start(ana, body, key)).headers['idempotent-replayed']).toBe('true');
    expect(await counts()).toEqual({
      payments: before.payments + 1,
      checkouts: before.checkouts + 1,
      keys: before.keys + 1,
    });
    await cancel(ana, started.payment_id);
  });

  it('concurrent requests with one key and a refused body: the claim is let go, each runs it in turn, none replays it', async () => {
    const key = newKey();
    const skipping = await bodyFor(ana, 1, 1);
    const before = await counts();
    const answers = await Promise.all(Array.from({ length: 5 }, () => start(ana, skipping, key)));
    const refused = answers.filter((answer) => answer.statusCode === 422);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of answers) {
      expect(answer.headers['idempotent-replayed'], answer.body).toBeUndefined();
      expect([422, 409]).toContain(answer.statusCode);
      const { code } = answer.json<{ code: string }>();
      expect(code).toBe(
        answer.statusCode === 422 ? 'PAYMENT_ORDER_VIOLATION' : 'IDEMPOTENCY_IN_PROGRESS',
      );
    }
    expect(await counts()).toEqual(before);
  });

  it('a 5xx is not kept: after one that left a pending payment, the same key runs again and meets PAYMENT_IN_PROGRESS, with no second payment or checkout', async () => {
    const key = newKey();
    const body = await bodyFor(ana);
    const before = await counts();
    // The checkout is created, then neither issuing nor cancelling the row can be recorded: the
    // payment stays pending and iniciar answers 500.
    await tenant.query(`
      CREATE FUNCTION public.test_refuse_payment_update() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'payment updates refused by the test'; END $$;
      CREATE TRIGGER test_refuse_payment_update BEFORE UPDATE ON public.portal_payments
        FOR EACH ROW EXECUTE FUNCTION public.test_refuse_payment_update();`);
    let failed;
    try {
      failed = await start(ana, body, key);
    } finally {
      await tenant.query(`
        DROP TRIGGER test_refuse_payment_update ON public.portal_payments;
        DROP FUNCTION public.test_refuse_payment_update();`);
    }
    expect(failed.statusCode, failed.body).toBe(500);
    expect(await counts()).toEqual({
      payments: before.payments + 1,
      checkouts: before.checkouts + 1,
      keys: before.keys,
    });
    const [pending] = await tenant.query<{ id: number; status: string }>(
      'SELECT id, status FROM public.portal_payments ORDER BY id DESC LIMIT 1',
    );
    expect(pending?.status).toBe('pending');

    const retried = await start(ana, body, key);
    expect(retried.statusCode, retried.body).toBe(409);
    expect(retried.json()).toMatchObject({ code: 'PAYMENT_IN_PROGRESS' });
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await counts()).toEqual({
      payments: before.payments + 1,
      checkouts: before.checkouts + 1,
      keys: before.keys,
    });
    await cancel(ana, Number(pending?.id));
  });

  it('20 concurrent requests with one key: one payment, one gateway call; the others replay it or are 409', async () => {
    const key = newKey();
    const body = await bodyFor(ana);
    const before = await counts();
    const answers = await Promise.all(Array.from({ length: 20 }, () => start(ana, body, key)));
    const ran = answers.filter(
      (answer) => answer.statusCode === 200 && answer.headers['idempotent-replayed'] === undefined,
    );
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer.statusCode === 200) {
        expect(answer.body).toBe(ran[0]?.body);
      } else {
        expect(answer.statusCode, answer.body).toBe(409);
        expect(answer.json()).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
      }
    }
    expect(await counts()).toEqual({
      payments: before.payments + 1,
      checkouts: before.checkouts + 1,
      keys: before.keys + 1,
    });
    await cancel(ana, startedOf(ran[0] as LightMyRequestResponse).payment_id);
  });

  it('without the header nothing changes: a second iniciar is 409 PAYMENT_IN_PROGRESS, no key is stored', async () => {
    const body = await bodyFor(ana);
    const before = await counts();
    const first = startedOf(await start(ana, body, undefined));
    const second = await start(ana, body, undefined);
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ code: 'PAYMENT_IN_PROGRESS' });
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(await counts()).toEqual({
      payments: before.payments + 1,
      checkouts: before.checkouts + 1,
      keys: before.keys,
    });
    await cancel(ana, first.payment_id);
  });

  it('a key that is not 1 to 255 printable ASCII characters is 400 INVALID_FACTURAS (the route’s validation code)', async () => {
    const body = await bodyFor(ana);
    const before = await counts();
    for (const key of ['', 'x'.repeat(256), 'clave\u00e9']) {
      const response = await start(ana, body, key);
      expect(response.statusCode, JSON.stringify(key)).toBe(400);
      expect(response.json()).toMatchObject({ success: false, code: 'INVALID_FACTURAS' });
    }
    expect(await counts()).toEqual(before);
    const longest = startedOf(await start(ana, body, `${'k'.repeat(253)} k`));
    await cancel(ana, longest.payment_id);
  });

  it('a request that died holding the key blocks it only until its lock expires', async () => {
    const key = newKey();
    const body = await bodyFor(ana);
    const first = startedOf(await start(ana, body, key));
    await cancel(ana, first.payment_id);
    // As if its process had died after claiming the key: in progress, no answer.
    await tenant.query(
      `UPDATE public.portal_idempotency_keys
          SET status = 'in_progress', locked_at = $2, response_status = NULL, response_body = NULL
        WHERE idempotency_key = $1`,
      [key, clock.now()],
    );
    const waiting = await start(ana, body, key);
    expect(waiting.statusCode).toBe(409);
    expect(waiting.json()).toMatchObject({ code: 'IDEMPOTENCY_IN_PROGRESS' });
    expect(waiting.headers['retry-after']).toBe('1');
    clock.advance(40_001);
    const before = await counts();
    const second = startedOf(await start(ana, body, key));
    expect(second.payment_id).not.toBe(first.payment_id);
    expect(await counts()).toMatchObject({
      payments: before.payments + 1,
      checkouts: before.checkouts + 1,
    });
    await cancel(ana, second.payment_id);
  }, 15_000);

  it('two app instances on the same databases share the keys', async () => {
    const other = await env.app({}, { clock, perUserMax: 10_000 });
    try {
      const key = newKey();
      const body = await bodyFor(ana);
      const before = await counts();
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          start(ana, body, key, { on: index % 2 === 0 ? app : other }),
        ),
      );
      const ran = answers.filter(
        (answer) =>
          answer.statusCode === 200 && answer.headers['idempotent-replayed'] === undefined,
      );
      expect(ran).toHaveLength(1);
      for (const answer of answers) expect([200, 409]).toContain(answer.statusCode);
      const replayed = await start(ana, body, key, { on: other });
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.body).toBe(ran[0]?.body);
      expect(await counts()).toEqual({
        payments: before.payments + 1,
        checkouts: before.checkouts + 1,
        keys: before.keys + 1,
      });
      await cancel(ana, startedOf(replayed).payment_id);
    } finally {
      await other.close();
    }
  });
});

describe('OpenAPI', () => {
  it('lists the optional Idempotency-Key header on iniciar and generar', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json<{
      paths: Record<
        string,
        { post?: { parameters?: { in: string; name: string; required?: boolean }[] } }
      >;
    }>();
    for (const path of ['/portal/pagos/iniciar', '/portal/cupones/generar']) {
      const parameters = document.paths[path]?.post?.parameters ?? [];
      expect(parameters, path).toContainEqual(
        expect.objectContaining({ in: 'header', name: 'idempotency-key', required: false }),
      );
    }
  });
});

// Last: they move the clock a day on.
describe('24 hours later', () => {
  it('a key older than 24 hours is new, even before it is pruned', async () => {
    const key = newKey();
    const body = await bodyFor(ana);
    const first = startedOf(await start(ana, body, key));
    await cancel(ana, first.payment_id);
    clock.advance(24 * 60 * 60_000 + 1_000);
    await logInBoth(app);
    const before = await counts();
    const again = await start(ana, body, key);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    const second = startedOf(again);
    expect(second.payment_id).not.toBe(first.payment_id);
    expect(await counts()).toMatchObject({
      payments: before.payments + 1,
      checkouts: before.checkouts + 1,
      keys: before.keys,
    });
    await cancel(ana, second.payment_id);
  });

  it('the prune job deletes keys older than 24 hours, visiting only the tenants marked due', async () => {
    const prune = createIdempotencyPrune({
      systemDb: app.systemDb,
      tenancy: app.tenancy,
      clock,
      log: app.log,
    });
    const young = newKey();
    startedOf(await start(textil, await bodyFor(textil), young));
    const before = await counts();
    expect(before.keys).toBeGreaterThan(2);
    const [mark] = await env.systemQuery<{ due_at: Date }>(
      'SELECT due_at FROM public.portal_idempotency_due WHERE tenant_id = 1',
    );
    expect(mark?.due_at.getTime()).toBeLessThanOrEqual(clock.now().getTime());
    const deleted = await prune.sweep();
    expect(deleted).toBe(before.keys - 2);
    const kept = await tenant.query<{ idempotency_key: string }>(
      'SELECT idempotency_key FROM public.portal_idempotency_keys ORDER BY created_at',
    );
    expect(kept.map((row) => row.idempotency_key)).toContain(young);
    // The next visit is due when the oldest key left turns 24 hours old, not before.
    const [next] = await env.systemQuery<{ due_at: Date }>(
      'SELECT due_at FROM public.portal_idempotency_due WHERE tenant_id = 1',
    );
    expect(next?.due_at.getTime()).toBeGreaterThan(clock.now().getTime());
    expect(await prune.sweep()).toBe(0);
  });
});
