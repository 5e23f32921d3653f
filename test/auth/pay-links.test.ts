import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes, type RouteKey } from '../../contract/routes.js';
import { INVITATION_EMAIL_JOB } from '../../src/modules/auth/links/invitations.js';
import { startJobQueue } from '../../src/platform/jobs.js';
import {
  addAuthTenant,
  bearer,
  login,
  PASSWORD,
  register,
  uniqueAddress,
} from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { capturedLogs } from '../helpers/logs.js';
import { receiptIni } from '../helpers/payments.js';
import { sharedReportsService, TEST_REPORTS_SECRET } from '../helpers/reports.js';
import { sandboxApproves, sandboxIni } from '../helpers/sandbox.js';
import {
  mintStaffToken,
  staffDoorSettings,
  staffKeyPair,
  type StaffKeyPair,
} from '../helpers/staff.js';

/*
 * Pay links and invitations (docs/pay-links.md): a link's token pays and nothing else; links die
 * as the contract says; an invitation registers a customer without a DNI.
 */

const env = useTestEnvironment();
const SECRET = 'links-sandbox-secret';
const WEBHOOK_TOKEN = 'links-webhook-token';
const WEB = 'https://portal.example.com';
let app: FastifyInstance;
let tenant: TestTenant;
let pair: StaffKeyPair;
let staff: string;
let anaId: string;
/** The server's log at info, as production writes it, read by the file's last test. */
const logs = capturedLogs('info');
/** Every link and invitation token the file made: none may reach that log. */
const tokensSeen = new Set<string>();

function tokenOf(url: string): string {
  const match = /#enlace=([A-Za-z0-9_-]+)$/.exec(url);
  if (!match?.[1]) throw new Error(`no link token in ${url}`);
  tokensSeen.add(match[1]);
  return match[1];
}

async function staffLink(): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: `/portal/comercio/clientes/${anaId}/enlace?sucursal_id=1`,
    headers: bearer(staff),
  });
  expect(response.statusCode, response.body).toBe(200);
  const { url, vence } = response.json<{ data: { url: string; vence: string } }>().data;
  expect(url.startsWith(`${WEB}/e/1/pagar#enlace=`)).toBe(true);
  expect(new Date(vence).getTime()).toBeGreaterThan(Date.now() + 13 * 86_400_000);
  return tokenOf(url);
}

function exchange(token: string) {
  return app.inject({
    method: 'POST',
    url: '/portal/auth/enlace',
    payload: { token },
    remoteAddress: uniqueAddress(),
  });
}

async function linkAccess(token: string): Promise<string> {
  const response = await exchange(token);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { access_token: string } }>().data.access_token;
}

beforeAll(async () => {
  pair = staffKeyPair();
  tenant = await addAuthTenant(env, 1, {
    ...sandboxIni(SECRET),
    ...receiptIni(WEBHOOK_TOKEN, 'Banco Enlaces CC 1'),
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', '0001-00000501', '2026-01-05', '2026-02-05', 150.00, 150.00),
            (1, 'FAC', 'Factura B', '0001-00000502', '2026-02-05', '2026-03-05', 250.00, 250.00)`,
  );
  const reports = await sharedReportsService();
  app = await env.app(
    {
      ...staffDoorSettings([pair]),
      REPORTS_SERVICE_SECRET: TEST_REPORTS_SECRET,
      REPORTS_URL: reports.url,
    },
    { logger: logs.logger },
  );
  anaId = (await register(app)).portal_user_id;
  staff = await mintStaffToken(pair);
});

describe('a pay link', () => {
  it('is exchanged for a 15-minute token that may only pay, audited, no cookie', async () => {
    const response = await exchange(await staffLink());
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.headers['cache-control']).toBe('no-store');
    const { data } = response.json<{
      data: {
        expires_in: number;
        alcance: string;
        user: { portal_user_id: string; nombre: string };
      };
    }>();
    expect(data).toMatchObject({
      expires_in: 900,
      alcance: 'pago',
      user: { portal_user_id: anaId, nombre: 'Ana Gómez' },
    });
    const events = await tenant.query<{ details: { motivo: string } }>(
      `SELECT details FROM public.portal_audit_log WHERE event = 'login_link'`,
    );
    expect(events.at(-1)?.details).toEqual({ motivo: 'comercio' });
    const [row] = await env.systemQuery<{ uses: number; token_hash: string }>(
      'SELECT uses, token_hash FROM portal_pay_links ORDER BY id DESC LIMIT 1',
    );
    expect(row?.uses).toBe(1);
    expect(row?.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('unknown, malformed or expired: 401 INVALID_LINK, one message', async () => {
    const unknown = await exchange('A'.repeat(43));
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toMatchObject({ code: 'INVALID_LINK' });
    const token = await staffLink();
    await env.systemQuery(
      `UPDATE portal_pay_links SET expires_at = now() - interval '1 minute'
        WHERE id = (SELECT max(id) FROM portal_pay_links)`,
    );
    const expired = await exchange(token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json<{ error: string }>().error).toBe(unknown.json<{ error: string }>().error);
  });

  it('every customer route of the table answers its token 403; the payer routes take it', async () => {
    const access = await linkAccess(await staffLink());
    const wrong: string[] = [];
    for (const key of Object.keys(routes) as RouteKey[]) {
      const { method, path, door } = routes[key];
      if (door !== 'customer' && door !== 'payer') continue;
      const response = await app.inject({
        method,
        url: path.replace(/\{\w+\}/g, '1'),
        headers: bearer(access),
        ...((method === 'POST' || method === 'PUT') && { payload: {} }),
      });
      const forbidden =
        response.statusCode === 403 &&
        response.json<{ code: string; error: string }>().code === 'FORBIDDEN';
      if (door === 'customer' && !forbidden) wrong.push(`${key}: ${response.statusCode}`);
      if (door === 'payer' && (forbidden || response.statusCode === 401)) {
        wrong.push(`${key}: ${response.statusCode}`);
      }
    }
    expect(wrong).toEqual([]);
    const profile = await app.inject({
      method: 'GET',
      url: '/portal/perfil',
      headers: bearer(access),
    });
    expect(profile.json<{ error: string }>().error).toBe(
      'Este enlace sólo permite pagar. Ingresá con tu contraseña para ver todo.',
    );
  });

  it('pays through the sandbox to the receipt, and reads only payments links started', async () => {
    const access = await linkAccess(await staffLink());
    const debts = await app.inject({
      method: 'GET',
      url: '/portal/deudas',
      headers: bearer(access),
    });
    expect(debts.statusCode).toBe(200);
    const [first] = debts.json<{ data: { items: { id: string; debe: number }[] } }>().data.items;
    const started = await app.inject({
      method: 'POST',
      url: '/portal/pagos/iniciar',
      headers: { ...bearer(access), origin: WEB },
      payload: { facturas: [{ id: first?.id, monto: first?.debe }], total: first?.debe },
    });
    expect(started.statusCode, started.body).toBe(200);
    const paymentId = started.json<{ data: { payment_id: number } }>().data.payment_id;
    await sandboxApproves(app, tenant, {
      id: paymentId,
      sucursalId: 1,
      webhookToken: WEBHOOK_TOKEN,
      secret: SECRET,
    });
    const detail = await app.inject({
      method: 'GET',
      url: `/portal/pagos/${paymentId}`,
      headers: bearer(access),
    });
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json()).toMatchObject({ data: { estado: 'approved', pagado_con_enlace: true } });
    const receipt = await app.inject({
      method: 'GET',
      url: `/portal/pagos/${paymentId}/recibo`,
      headers: bearer(access),
    });
    expect(receipt.statusCode, receipt.body).toBe(200);
    expect(receipt.headers['content-type']).toBe('application/pdf');
    expect(receipt.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');

    // A payment of the full session is not the link's to read.
    const session = await login(app);
    const [second] = (
      await app.inject({
        method: 'GET',
        url: '/portal/deudas',
        headers: bearer(session.accessToken),
      })
    ).json<{ data: { items: { id: string; debe: number }[] } }>().data.items;
    const own = await app.inject({
      method: 'POST',
      url: '/portal/pagos/iniciar',
      headers: { ...bearer(session.accessToken), origin: WEB },
      payload: { facturas: [{ id: second?.id, monto: second?.debe }], total: second?.debe },
    });
    const ownId = own.json<{ data: { payment_id: number } }>().data.payment_id;
    const hidden = await app.inject({
      method: 'GET',
      url: `/portal/pagos/${ownId}`,
      headers: bearer(access),
    });
    expect(hidden.statusCode).toBe(404);
    const history = await app.inject({
      method: 'GET',
      url: '/portal/pagos/historial',
      headers: bearer(session.accessToken),
    });
    const items = history.json<{ data: { id: number; pagado_con_enlace: boolean }[] }>().data;
    expect(items.find((item) => item.id === paymentId)?.pagado_con_enlace).toBe(true);
    expect(items.find((item) => item.id === ownId)?.pagado_con_enlace).toBe(false);
    await app.inject({
      method: 'POST',
      url: '/portal/pagos/cancelar',
      headers: bearer(session.accessToken),
      payload: { payment_id: ownId },
    });
  });

  it('the customer shares, lists and revokes links; a revoked link and its token stop', async () => {
    const session = await login(app);
    const created = await app.inject({
      method: 'POST',
      url: '/portal/enlaces',
      headers: bearer(session.accessToken),
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id, url } = created.json<{ data: { id: number; url: string } }>().data;
    const access = await linkAccess(tokenOf(url));
    const listed = await app.inject({
      method: 'GET',
      url: '/portal/enlaces',
      headers: bearer(session.accessToken),
    });
    expect(
      listed.json<{ data: { items: { id: number; motivo: string }[] } }>().data.items,
    ).toContainEqual(expect.objectContaining({ id, motivo: 'cliente' }));
    const revoked = await app.inject({
      method: 'DELETE',
      url: `/portal/enlaces/${id}`,
      headers: bearer(session.accessToken),
    });
    expect(revoked.statusCode).toBe(200);
    expect((await exchange(tokenOf(url))).statusCode).toBe(401);
    const after = await app.inject({
      method: 'GET',
      url: '/portal/deudas',
      headers: bearer(access),
    });
    expect(after.statusCode).toBe(401);
    const again = await app.inject({
      method: 'DELETE',
      url: `/portal/enlaces/${id}`,
      headers: bearer(session.accessToken),
    });
    expect(again.statusCode).toBe(404);
  });

  it('a password change and staff ending the sessions revoke every link of the account', async () => {
    const first = await staffLink();
    const firstAccess = await linkAccess(first);
    const session = await login(app);
    const changed = await app.inject({
      method: 'PUT',
      url: '/portal/auth/cambiar-password',
      headers: bearer(session.accessToken),
      payload: { current_password: PASSWORD, new_password: 'OtraClave456' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect((await exchange(first)).statusCode).toBe(401);
    const stale = await app.inject({
      method: 'GET',
      url: '/portal/deudas',
      headers: bearer(firstAccess),
    });
    expect(stale.statusCode).toBe(401);
    const back = await login(app, { password: 'OtraClave456' });
    await app.inject({
      method: 'PUT',
      url: '/portal/auth/cambiar-password',
      headers: bearer(back.accessToken),
      payload: { current_password: 'OtraClave456', new_password: PASSWORD },
    });

    const second = await staffLink();
    const ended = await app.inject({
      method: 'POST',
      url: `/portal/comercio/clientes/${anaId}/cerrar-sesiones?sucursal_id=1`,
      headers: bearer(staff),
    });
    expect(ended.statusCode).toBe(200);
    expect((await exchange(second)).statusCode).toBe(401);
  });

  it('portal.enlaces.dias = 0 turns them off', async () => {
    await tenant.query(`INSERT INTO public.ini (clave, valor) VALUES ('portal.enlaces.dias', '0')`);
    try {
      const off = await env.app(staffDoorSettings([pair]));
      const session = await login(off);
      const created = await off.inject({
        method: 'POST',
        url: '/portal/enlaces',
        headers: bearer(session.accessToken),
      });
      expect(created.statusCode).toBe(409);
      const bystaff = await off.inject({
        method: 'POST',
        url: `/portal/comercio/clientes/${anaId}/enlace?sucursal_id=1`,
        headers: bearer(staff),
      });
      expect(bystaff.statusCode).toBe(409);
    } finally {
      await tenant.query(`DELETE FROM public.ini WHERE clave = 'portal.enlaces.dias'`);
    }
  });
});

describe('invitations', () => {
  async function invitationToken(to: string): Promise<string> {
    for (let tries = 0; tries < 100; tries += 1) {
      const message = app.outbox.messages.filter((each) => each.to === to).at(-1);
      const match = message && /#invitacion=([A-Za-z0-9_-]+)/.exec(message.text);
      if (match?.[1]) {
        tokensSeen.add(match[1]);
        return match[1];
      }
      await sleep(100);
    }
    throw new Error(`no invitation to ${to}`);
  }

  function invite(body: Record<string, unknown>) {
    return app.inject({
      method: 'POST',
      url: '/portal/comercio/clientes/invitar',
      headers: bearer(staff),
      payload: body,
    });
  }

  it('staff invite, the customer registers from it without a DNI, and it is spent', async () => {
    const invited = await invite({ sucursal_id: 1, cnro: 2, email: 'textil@example.com' });
    expect(invited.statusCode, invited.body).toBe(200);
    expect(invited.json()).toMatchObject({ data: { enviada: true } });
    const token = await invitationToken('textil@example.com');
    const message = app.outbox.messages.filter((each) => each.to === 'textil@example.com').at(-1);
    expect(message?.subject).toBe('Empresa 1 te invita a su portal de clientes');
    expect(message?.text).toContain(`${WEB}/e/1/registro#invitacion=`);

    const read = await app.inject({
      method: 'POST',
      url: '/portal/auth/invitacion',
      payload: { invitacion: token },
      remoteAddress: uniqueAddress(),
    });
    expect(read.json()).toMatchObject({
      data: { tenant_id: 1, sucursal_id: 1, nombre: 'Textil Sur SRL' },
    });

    const registered = await app.inject({
      method: 'POST',
      url: '/portal/auth/register',
      payload: {
        invitacion: token,
        email: 'pagos@textil.example.com',
        password: PASSWORD,
        password_confirmation: PASSWORD,
      },
      remoteAddress: uniqueAddress(),
    });
    expect(registered.statusCode, registered.body).toBe(201);
    expect(registered.json()).toMatchObject({
      data: { nombre: 'Textil Sur SRL', email: 'pagos@textil.example.com' },
    });
    await login(app, { identifier: '20-30111333-5', identifier_type: 'cuit' });

    const spent = await app.inject({
      method: 'POST',
      url: '/portal/auth/register',
      payload: {
        invitacion: token,
        email: 'x@example.com',
        password: PASSWORD,
        password_confirmation: PASSWORD,
      },
      remoteAddress: uniqueAddress(),
    });
    expect(spent.statusCode).toBe(400);
    expect(spent.json()).toMatchObject({ code: 'INVALID_INVITATION' });

    const list = await app.inject({
      method: 'GET',
      url: '/portal/comercio/invitaciones',
      headers: bearer(staff),
    });
    expect(list.json()).toMatchObject({
      data: {
        invitados: 1,
        registrados: 1,
        items: [expect.objectContaining({ cnro: 2, estado: 'registrada' })],
      },
    });
  });

  it('its e-mail goes once: the job run again (as pg-boss retries one that died after sending) sends nothing', async () => {
    await tenant.query(
      `INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES (7, 'Elsa Paz', '27666777')`,
    );
    expect((await invite({ sucursal_id: 1, cnro: 7, email: 'elsa@example.com' })).statusCode).toBe(
      200,
    );
    await invitationToken('elsa@example.com');
    await env.waitForJobs(INVITATION_EMAIL_JOB, { email: 'elsa@example.com' });
    const [job] = await env.systemQuery<{ data: Record<string, unknown> }>(
      `SELECT data FROM pgboss.job WHERE name = $1 AND data @> $2::jsonb`,
      [INVITATION_EMAIL_JOB, JSON.stringify({ email: 'elsa@example.com' })],
    );
    const again = await startJobQueue(env.systemUrl, app.log, {
      pollingIntervalSeconds: 1,
      retryDelaySeconds: 1,
    });
    try {
      await again.send(INVITATION_EMAIL_JOB, job?.data ?? {});
    } finally {
      await again.stop();
    }
    await env.waitForJobs(INVITATION_EMAIL_JOB, { email: 'elsa@example.com' });
    expect(app.outbox.messages.filter((each) => each.to === 'elsa@example.com')).toHaveLength(1);
    const [row] = await env.systemQuery<{ sent_at: Date | null }>(
      `SELECT sent_at FROM portal_invitations WHERE email = $1`,
      ['elsa@example.com'],
    );
    expect(row?.sent_at).toBeInstanceOf(Date);
  });

  it('refusals: a customer not in the sucursal, one with an account, a replaced invitation', async () => {
    expect(
      (await invite({ sucursal_id: 1, cnro: 99, email: 'a@example.com' })).json(),
    ).toMatchObject({
      code: 'ORDCON_NOT_FOUND',
    });
    const existing = await invite({ sucursal_id: 1, cnro: 1, email: 'a@example.com' });
    expect(existing.statusCode).toBe(409);
    expect(existing.json()).toMatchObject({ code: 'USER_ALREADY_EXISTS' });

    await invite({ sucursal_id: 2, cnro: 3, email: 'beto@example.com' });
    const first = await invitationToken('beto@example.com');
    await invite({ sucursal_id: 2, cnro: 3, email: 'beto2@example.com' });
    await invitationToken('beto2@example.com');
    const replaced = await app.inject({
      method: 'POST',
      url: '/portal/auth/invitacion',
      payload: { invitacion: first },
      remoteAddress: uniqueAddress(),
    });
    expect(replaced.statusCode).toBe(400);
    expect(replaced.json()).toMatchObject({ code: 'INVALID_INVITATION' });
    const audit = await app.inject({
      method: 'GET',
      url: '/portal/comercio/auditoria',
      headers: bearer(staff),
    });
    expect(
      audit
        .json<{ data: { items: { accion: string }[] } }>()
        .data.items.some((item) => item.accion === 'invitar'),
    ).toBe(true);
  });

  it('a CSV invites many: per row sent or why not, never twice to a customer in a day', async () => {
    await tenant.query(
      `INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES (4, 'Carla Ruiz', '27111222'),
                                                           (5, 'Dario Sosa', '20555666')`,
    );
    const csv = [
      'sucursal_id;cnro;email',
      '1;4;carla@example.com',
      '1;5;dario@example.com',
      '1;5;dario@example.com',
      '1;1;ana@example.com',
      '1;99;nadie@example.com',
      '77;4;carla@example.com',
      'esto no es una fila',
      '',
    ].join('\r\n');
    const upload = () =>
      app.inject({
        method: 'POST',
        url: '/portal/comercio/clientes/invitar.csv',
        headers: { ...bearer(staff), 'content-type': 'text/csv' },
        payload: `\uFEFF${csv}`,
      });
    const first = await upload();
    expect(first.statusCode, first.body).toBe(200);
    const { data } = first.json<{
      data: {
        items: { fila: number; enviada: boolean; motivo: string | null }[];
        enviadas: number;
      };
    }>();
    expect(data.items.map((item) => [item.fila, item.enviada, item.motivo])).toEqual([
      [2, true, null],
      [3, true, null],
      [4, false, 'repetido'],
      [5, false, 'ya_tiene_cuenta'],
      [6, false, 'cliente_inexistente'],
      [7, false, 'sucursal_invalida'],
      [8, false, 'fila_invalida'],
    ]);
    await invitationToken('carla@example.com');
    await invitationToken('dario@example.com');
    const again = await upload();
    const motivos = again.json<{ data: { items: { motivo: string | null }[] } }>().data.items;
    expect(motivos.slice(0, 2).map((item) => item.motivo)).toEqual([
      'invitado_hoy',
      'invitado_hoy',
    ]);
    // No other route takes CSV.
    const elsewhere = await app.inject({
      method: 'POST',
      url: '/portal/comercio/clientes/invitar',
      headers: { ...bearer(staff), 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(elsewhere.statusCode).toBe(415);
  });

  it('a CSV of 5,000 rows is read (over the 100 KiB the other bodies may be); one of 5,001 is refused', async () => {
    // Rows the API refuses before the database (a sucursal that is not a number): only the
    // file's size and its row count are at stake. 5,000 of them are some 200 KB.
    const rows = (count: number) =>
      Array.from({ length: count }, (_, index) => `x;${index + 1};cliente.${index}@example.com`);
    const upload = (count: number) =>
      app.inject({
        method: 'POST',
        url: '/portal/comercio/clientes/invitar.csv',
        headers: { ...bearer(staff), 'content-type': 'text/csv' },
        payload: ['sucursal_id;cnro;email', ...rows(count)].join('\r\n'),
      });
    const full = await upload(5_000);
    expect(full.statusCode, full.body.slice(0, 300)).toBe(200);
    const { data } = full.json<{
      data: { items: { motivo: string | null }[]; enviadas: number; no_enviadas: number };
    }>();
    expect(data.items).toHaveLength(5_000);
    expect(data.enviadas).toBe(0);
    expect(data.no_enviadas).toBe(5_000);
    expect(new Set(data.items.map((item) => item.motivo))).toEqual(new Set(['fila_invalida']));
    const over = await upload(5_001);
    expect(over.statusCode).toBe(422);
    expect(over.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('an expired invitation does not register', async () => {
    await tenant.query(
      `INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES (6, 'Elena Vidal', '27999888')`,
    );
    await invite({ sucursal_id: 1, cnro: 6, email: 'elena@example.com' });
    const token = await invitationToken('elena@example.com');
    await env.systemQuery(
      `UPDATE portal_invitations SET expires_at = now() - interval '1 minute' WHERE cnro = 6`,
    );
    const registered = await app.inject({
      method: 'POST',
      url: '/portal/auth/register',
      payload: {
        invitacion: token,
        email: 'e@example.com',
        password: PASSWORD,
        password_confirmation: PASSWORD,
      },
      remoteAddress: uniqueAddress(),
    });
    expect(registered.statusCode).toBe(400);
    expect(registered.json()).toMatchObject({ code: 'INVALID_INVITATION' });
    const listed = await app.inject({
      method: 'GET',
      url: '/portal/comercio/invitaciones',
      headers: bearer(staff),
    });
    const items = listed.json<{ data: { items: { cnro: number; estado: string }[] } }>().data.items;
    expect(items.find((item) => item.cnro === 6)?.estado).toBe('vencida');
  });
});

it('the exchange is limited to 10 a minute per address', async () => {
  const address = uniqueAddress();
  const statuses: number[] = [];
  for (let attempt = 0; attempt < 11; attempt += 1) {
    const response = await app.inject({
      method: 'POST',
      url: '/portal/auth/enlace',
      payload: { token: 'B'.repeat(43) },
      remoteAddress: address,
    });
    statuses.push(response.statusCode);
  }
  expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
  expect(statuses[10]).toBe(429);
});

it('no link or invitation token the file made reached the server’s log', () => {
  expect(tokensSeen.size).toBeGreaterThan(5);
  expect(logs.lines.length).toBeGreaterThan(50);
  const text = logs.lines.join('');
  expect([...tokensSeen].filter((token) => text.includes(token))).toEqual([]);
});
