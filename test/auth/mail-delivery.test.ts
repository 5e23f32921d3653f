import type { FastifyInstance } from 'fastify';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment } from '../helpers/harness.js';
import { addAuthTenant, register, uniqueAddress } from '../helpers/auth.js';

const env = useTestEnvironment();
let smtp: SmtpSink;
let port = 0;

async function until<T>(probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(100);
  }
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  port = smtp.port;
});

afterAll(async () => {
  await smtp.close();
});

function forgot(app: FastifyInstance, tenantId: number) {
  return app.inject({
    method: 'POST',
    url: '/portal/auth/forgot-password',
    payload: {
      identifier: '30111222',
      identifier_type: 'dni',
      tenant_id: tenantId,
      sucursal_id: 1,
    },
    remoteAddress: uniqueAddress(),
  });
}

describe('reset-code e-mail delivery', () => {
  it('a refused send is retried by the job queue; the HTTP answer never depended on it', async () => {
    await addAuthTenant(env, 1, {
      'mail.smtp.host': '127.0.0.1',
      'mail.smtp.port': String(port),
      'mail.from': 'Empresa Uno <no-reply@uno.example>',
    });
    const app = await env.app({}, { jobRetryDelaySeconds: 1 });
    await register(app, { tenant_id: 1 });
    smtp.refuseNext(1);
    const response = await forgot(app, 1);
    expect(response.statusCode).toBe(200);
    const mail = await until(() => smtp.inbox.find((mail) => mail.from === 'no-reply@uno.example'));
    expect(smtp.refusalsLeft()).toBe(0);
    expect(mail.text).toMatch(/\b\d{6}\b/);
    // Instances share the job queue and any may send: this one stops so the next test's sends.
    await app.close();
  });

  it('without any mail transport, development writes the message to the outbox', async () => {
    await addAuthTenant(env, 2);
    const printed: string[] = [];
    const app = await env.app({}, { print: (text) => printed.push(text) });
    await register(app, { tenant_id: 2 });
    expect((await forgot(app, 2)).statusCode).toBe(200);
    const message = await until(() => app.outbox.messages.find((m) => m.tenantId === 2));
    expect(message.to).toBe('ana@example.com');
    expect(message.subject).toBe('Código para restablecer tu contraseña');
    expect(message.text).toMatch(/vence en 15 minutos/);
    expect(printed.join('')).toContain('DEV OUTBOX');
    expect(printed.join('')).toMatch(/\n {4}\d{6}\n/);
    await app.close();
  });

  it('production never uses the outbox: with no transport nothing is "sent" and the answer is the same', async () => {
    await addAuthTenant(env, 3);
    const app = await env.app(
      {
        NODE_ENV: 'production',
        PORTAL_REQUIRE_HTTPS: 'false',
        PORTAL_JWT_SECRET: 'p'.repeat(40),
        REPORTS_SERVICE_SECRET: 'r'.repeat(40),
      },
      { jobRetryDelaySeconds: 1 },
    );
    await register(app, { tenant_id: 3 });
    expect((await forgot(app, 3)).statusCode).toBe(200);
    const emailJobs = () =>
      env.systemQuery<{ state: string; retry_count: number }>(
        `SELECT state, retry_count FROM pgboss.job WHERE name = 'auth.reset-code-email'
          AND data->>'tenantId' = '3'`,
      );
    // Until the job has been tried and failed at least once (a busy machine polls late).
    const deadline = Date.now() + 15_000;
    let jobs = await emailJobs();
    while (!((jobs[0]?.retry_count ?? 0) > 0) && Date.now() < deadline) {
      await sleep(200);
      jobs = await emailJobs();
    }
    expect(app.outbox.messages).toEqual([]);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.state).not.toBe('completed');
    expect(jobs[0]?.retry_count).toBeGreaterThan(0);
  });
});
