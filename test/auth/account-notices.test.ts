import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment } from '../helpers/harness.js';
import {
  addAuthTenant,
  bearer,
  fakeClock,
  login,
  PASSWORD,
  register,
  uniqueAddress,
} from '../helpers/auth.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../helpers/smtp.js';

/*
 * What the customer is told about their own account's security (issue 38): "Cambiaste tu
 * contraseña" after a change or a reset, once, through the e-mail jobs, with the time on the
 * tenant's clock; and `ingreso_anterior` on GET /portal/auth/me, the login before the current one.
 */

const env = useTestEnvironment();
const clock = fakeClock(new Date('2026-11-21T12:00:00Z'));
let smtp: SmtpSink;
let app: FastifyInstance;

beforeAll(async () => {
  smtp = await startSmtpSink();
  await addAuthTenant(env, 1, {
    'mail.smtp.host': '127.0.0.1',
    'mail.smtp.port': String(smtp.port),
    'mail.from': 'Empresa Uno <no-reply@uno.example>',
    // UTC+14: a time in Buenos Aires' zone would read 17 hours off.
    'sistema.zona_horaria': 'Pacific/Kiritimati',
  });
  app = await env.app({}, { clock, jobRetryDelaySeconds: 1 });
  await register(app);
});

afterAll(async () => {
  await app.close();
  await smtp.close();
});

/** The subject's words are encoded in the header (ñ): told apart by what the text says. */
const TEXTS: Record<string, RegExp> = {
  'Cambiaste tu contraseña': /La contraseña de tu cuenta .* se cambió el/,
  'Código para restablecer tu contraseña': /Tu código para restablecer la contraseña/,
};

function mailsWith(subject: string): ReceivedMail[] {
  const text = TEXTS[subject];
  return smtp.inbox.filter((mail) => text?.test(mail.text) === true);
}

async function until<T>(probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(100);
  }
}

async function me(accessToken: string) {
  const response = await app.inject({
    method: 'GET',
    url: '/portal/auth/me',
    headers: bearer(accessToken),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { last_login: string; ingreso_anterior: string | null } }>().data;
}

describe('GET /portal/auth/me: ingreso_anterior', () => {
  it('is null at the first login, then the login before the current one; last_login is the current', async () => {
    const first = clock.now();
    const one = await login(app);
    expect(await me(one.accessToken)).toMatchObject({
      last_login: first.toISOString(),
      ingreso_anterior: null,
    });
    clock.advance(3 * 86_400_000);
    const second = clock.now();
    const two = await login(app);
    expect(await me(two.accessToken)).toMatchObject({
      last_login: second.toISOString(),
      ingreso_anterior: first.toISOString(),
    });
    // A wrong password is no login: it moves nothing.
    clock.advance(60_000);
    const wrong = await app.inject({
      method: 'POST',
      url: '/portal/auth/login',
      payload: {
        identifier: '30111222',
        identifier_type: 'dni',
        password: 'Equivocada1',
        tenant_id: 1,
        sucursal_id: 1,
      },
      remoteAddress: uniqueAddress(),
    });
    expect(wrong.statusCode).toBe(401);
    const three = await login(app);
    expect((await me(three.accessToken)).ingreso_anterior).toBe(second.toISOString());
  });
});

describe('"Cambiaste tu contraseña"', () => {
  const subject = 'Cambiaste tu contraseña';
  let password = PASSWORD;

  it('a change from the profile sends it once to the account’s e-mail, with the tenant’s time and what to do', async () => {
    const before = mailsWith(subject).length;
    clock.set(new Date('2026-11-22T10:30:00Z'));
    const { accessToken } = await login(app, { password });
    const response = await app.inject({
      method: 'PUT',
      url: '/portal/auth/cambiar-password',
      headers: bearer(accessToken),
      payload: { current_password: password, new_password: 'Cambiada2026' },
    });
    expect(response.statusCode, response.body).toBe(200);
    password = 'Cambiada2026';
    const mail = await until(() => mailsWith(subject)[before]);
    expect(mail.to).toEqual(['ana@example.com']);
    // 10:30 UTC is 00:30 of the next day in Kiritimati.
    expect(mail.text).toContain('se cambió el 23/11/2026 a las 00:30');
    expect(mail.text).toContain('desde tu perfil');
    expect(mail.text).toMatch(/Si no fuiste vos, .*"Olvidé mi contraseña".*Empresa 1/);
    // Once: nothing else arrives for the same change.
    await sleep(2_500);
    expect(mailsWith(subject)).toHaveLength(before + 1);
  });

  it('a reset with the e-mailed code sends it too, once', async () => {
    const before = mailsWith(subject).length;
    const codes = () => mailsWith('Código para restablecer tu contraseña').length;
    const codesBefore = codes();
    const identity = {
      identifier: '30111222',
      identifier_type: 'dni',
      tenant_id: 1,
      sucursal_id: 1,
    };
    const forgot = await app.inject({
      method: 'POST',
      url: '/portal/auth/forgot-password',
      payload: identity,
      remoteAddress: uniqueAddress(),
    });
    expect(forgot.statusCode).toBe(200);
    const codeMail = await until(
      () => mailsWith('Código para restablecer tu contraseña')[codesBefore],
    );
    const code = /\b(\d{6})\b/.exec(codeMail.text)?.[1] ?? '';
    // Within the code's 15 minutes.
    clock.advance(10 * 60_000);
    const reset = await app.inject({
      method: 'POST',
      url: '/portal/auth/reset-password',
      payload: { ...identity, code, password: 'Nueva2026x', password_confirmation: 'Nueva2026x' },
      remoteAddress: uniqueAddress(),
    });
    expect(reset.statusCode, reset.body).toBe(200);
    const mail = await until(() => mailsWith(subject)[before]);
    expect(mail.text).toContain('se cambió el 23/11/2026 a las 00:40');
    expect(mail.text).toContain('con el código que te enviamos por e-mail');
    await sleep(2_500);
    expect(mailsWith(subject)).toHaveLength(before + 1);
  });

  it('a refused change (wrong current password) sends nothing', async () => {
    const before = mailsWith(subject).length;
    const { accessToken } = await login(app, { password: 'Nueva2026x' });
    const response = await app.inject({
      method: 'PUT',
      url: '/portal/auth/cambiar-password',
      headers: bearer(accessToken),
      payload: { current_password: 'NoEsEsta1', new_password: 'OtraMas2026' },
    });
    expect(response.statusCode).toBe(401);
    await sleep(2_500);
    expect(mailsWith(subject)).toHaveLength(before);
  });
});
