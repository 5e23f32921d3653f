import { randomBytes } from 'node:crypto';
import type { FastifyServerOptions } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { freePort } from '../test/helpers/ports.js';
import { BENCH_DNI, BENCH_PASSWORD, type BenchEnvironment } from './environment.js';
import { qzBenchKeys } from './qz.js';

/** The portal as production runs it; `logger` replaces the silent one (the logs scenario). */
export async function startPortal(
  environment: BenchEnvironment,
  logger?: FastifyServerOptions['logger'],
) {
  const reportsUrl = `http://127.0.0.1:${await freePort()}`;
  // The webhook bench's fake Mercado Pago listens here; the portal calls only allowed origins.
  const gatewayPort = await freePort();
  const reportsSecret = randomBytes(32).toString('hex');
  const app = await buildApp(
    loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: environment.systemUrl,
      PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
      PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
      REPORTS_SERVICE_SECRET: reportsSecret,
      REPORTS_URL: reportsUrl,
      PORTAL_REQUIRE_HTTPS: 'false',
      PORTAL_GATEWAY_ALLOWED_ORIGINS: `http://127.0.0.1:${gatewayPort}`,
      // The login limit is per client IP: the load generator stands for one reverse proxy and
      // sends a different X-Forwarded-For per request, the one hop trusted here.
      TRUST_PROXY: '1',
      LOG_LEVEL: 'silent',
      ...(await qzBenchKeys()),
    }),
    // One benchmark user makes thousands of requests a minute; the limit is still counted. The
    // invoice PDF's fair-use limit (10 a minute, one at a time) is off: the bench measures renders.
    {
      perUserMax: 1_000_000_000,
      invoicePdfFairUse: false,
      ...(logger !== undefined && { logger }),
    },
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url, reportsUrl, reportsSecret, gatewayPort };
}

export async function loginToken(portalUrl: string): Promise<string> {
  const response = await fetch(`${portalUrl}/portal/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      identifier: BENCH_DNI,
      identifier_type: 'dni',
      password: BENCH_PASSWORD,
      tenant_id: 1,
      sucursal_id: 1,
    }),
  });
  const body = (await response.json()) as { data?: { access_token?: string } };
  if (!body.data?.access_token) throw new Error(`bench login failed: ${JSON.stringify(body)}`);
  return body.data.access_token;
}
