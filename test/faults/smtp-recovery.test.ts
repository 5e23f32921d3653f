import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { RESET_EMAIL_JOB } from '../../src/modules/auth/password-reset.js';
import { addAuthTenant, PASSWORD, register, uniqueAddress } from '../helpers/auth.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { until } from '../helpers/own-cluster.js';
import { listening } from '../helpers/ports.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

/*
 * The tenant's SMTP server is down (nothing listens on its port) when a customer asks for a
 * reset code, and comes back later on the same port. forgot-password never depends on mail
 * (docs/api.md: the same 200 always); the e-mail job fails, pg-boss retries it with doubling delays
 * (docs/faults.md: 15 s, doubling, 8 tries; 1 s here through the app's jobRetryDelaySeconds),
 * and the code arrives once the server answers, exactly once. A server that answers and refuses
 * is test/auth/mail-delivery.test.ts.
 */

const RETRY_DELAY_SECONDS = 1;
const FROM = 'no-reply@smtp-vuelve.example';

const env = useTestEnvironment();
let app: FastifyInstance;

beforeAll(async () => {});

function forgot() {
  return app.inject({
    method: 'POST',
    url: '/portal/auth/forgot-password',
    payload: { identifier: '30111222', identifier_type: 'dni', tenant_id: 1, sucursal_id: 1 },
    remoteAddress: uniqueAddress(),
  });
}

interface EmailJob {
  id: string;
  state: string;
  retry_count: number;
  retry_limit: number;
  retry_delay: number;
  retry_backoff: boolean;
  /** Seconds from the last try's start to the next one. */
  next_in: number | null;
}

/** The newest reset-code e-mail job, as pg-boss holds it. */
async function newestEmailJob(): Promise<EmailJob | undefined> {
  const [job] = await env.systemQuery<EmailJob>(
    `SELECT id, state, retry_count, retry_limit, retry_delay, retry_backoff,
            extract(epoch FROM start_after - started_on)::float8 AS next_in
       FROM pgboss.job WHERE name = $1 ORDER BY created_on DESC LIMIT 1`,
    [RESET_EMAIL_JOB],
  );
  return job;
}

describe('SMTP down, then back on the same port', () => {
  it('forgot-password answers the same 200; the e-mail job is retried with doubling delays and delivered once when SMTP returns', async () => {
    const first = await startSmtpSink();
    let smtp: SmtpSink | undefined = first;
    onTestFinished(() => smtp?.close());
    const port = first.port;
    await addAuthTenant(env, 1, {
      'mail.smtp.host': '127.0.0.1',
      'mail.smtp.port': String(port),
      'mail.from': `Empresa Uno <${FROM}>`,
    });
    app = await env.app({}, { jobRetryDelaySeconds: RETRY_DELAY_SECONDS });
    await register(app, { tenant_id: 1 });

    // SMTP up: the answer, and the code delivered at the first try.
    const up = await forgot();
    expect(up.statusCode).toBe(200);
    await until('the first code', () => (first.inbox.length > 0 ? true : undefined));
    expect(first.inbox).toHaveLength(1);

    // SMTP goes down: nothing listens on its port any more.
    await first.close();
    smtp = undefined;
    expect(await listening(port)).toBe(false);
    const started = performance.now();
    const down = await forgot();
    const answeredInMs = performance.now() - started;
    expect(down.statusCode).toBe(200);
    expect(down.headers['content-type']).toBe(up.headers['content-type']);
    expect(down.body).toBe(up.body);
    // Nothing waited for the mail server.
    expect(answeredInMs).toBeLessThan(2_000);

    // The job fails and is put back with growing delays: 1-2 s after the first failure, 2-4 s
    // after the second (pg-boss: retry_delay * 2^n, jittered, on doubling backoff).
    const firstFailure = await until('the first failure', async () => {
      const job = await newestEmailJob();
      return job?.state === 'retry' && job.retry_count === 0 ? job : undefined;
    });
    expect(firstFailure).toMatchObject({
      retry_limit: 8,
      retry_delay: RETRY_DELAY_SECONDS,
      retry_backoff: true,
    });
    const secondFailure = await until('the second failure', async () => {
      const job = await newestEmailJob();
      return job?.state === 'retry' && job.retry_count === 1 ? job : undefined;
    });
    expect(secondFailure.id).toBe(firstFailure.id);
    expect(firstFailure.next_in).toBeGreaterThanOrEqual(1);
    expect(firstFailure.next_in).toBeLessThan(2.5);
    expect(secondFailure.next_in).toBeGreaterThanOrEqual(2);
    expect(secondFailure.next_in).toBeLessThan(4.5);

    // SMTP comes back where it was; the next try delivers the code, once.
    const back = await startSmtpSink({ port });
    smtp = back;
    const delivered = await until('the job to complete', async () => {
      const job = await newestEmailJob();
      return job?.state === 'completed' ? job : undefined;
    });
    expect(delivered.id).toBe(firstFailure.id);
    expect(delivered.retry_count).toBeGreaterThanOrEqual(2);
    expect(back.inbox).toHaveLength(1);
    const [mail] = back.inbox;
    expect(mail?.from).toBe(FROM);
    expect(mail?.to).toEqual(['ana@example.com']);
    const code = /\b(\d{6})\b/.exec(mail?.text ?? '')?.[1];
    expect(code).toBeDefined();
    // No other e-mail job is left to send anything.
    expect(
      await env.systemQuery(`SELECT 1 FROM pgboss.job WHERE name = $1 AND state < 'completed'`, [
        RESET_EMAIL_JOB,
      ]),
    ).toHaveLength(0);

    // The code that arrived late is the one that works (it replaced the first request's).
    const reset = await app.inject({
      method: 'POST',
      url: '/portal/auth/reset-password',
      payload: {
        identifier: '30111222',
        identifier_type: 'dni',
        code,
        password: `${PASSWORD}9`,
        password_confirmation: `${PASSWORD}9`,
        tenant_id: 1,
        sucursal_id: 1,
      },
      remoteAddress: uniqueAddress(),
    });
    expect(reset.statusCode, reset.body).toBe(200);
  });
});
