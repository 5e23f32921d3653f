import bcrypt from 'bcrypt';
import Fastify from 'fastify';
import { createPool } from '../src/platform/db/connect.js';
import { BCRYPT_COST } from '../src/platform/security/passwords.js';
import { BENCH_PASSWORD, createBenchEnvironment, type BenchEnvironment } from './environment.js';
import {
  eventLoopUnder,
  measure,
  poolRate,
  printComparison,
  printTable,
  rawRate,
} from './measure.js';
import { remindersAtScale } from './avisos.js';
import { reminderDiscoveryAtScale } from './avisos-discovery.js';
import { approvalBurst } from './burst.js';
import {
  addCustomers,
  benchCustomerDni,
  BENCH_USERS,
  debtsUnderTraffic,
  requestLogCost,
} from './deudas.js';
import { statementRenders } from './estado-cuenta.js';
import { invoiceDownloads } from './facturas.js';
import { statementJsonUnderLoad } from './estado-cuenta-json.js';
import { receiptFairness } from './fairness.js';
import { qzSigning } from './qz.js';
import { receiptDownloads } from './recibo.js';
import { loginToken, startPortal } from './portal.js';
import { sessionVersionCost } from './session.js';
import { soakAtMonthEnd } from './soak.js';
import { tenantPages } from './tenant-pages.js';
import { tenantScale } from './tenants.js';
import { transfersBurst } from './transfers.js';
import { webhookThroughput } from './webhook.js';
import { webFirstPage } from './web-load.js';

/**
 * `npm run bench`: each scenario runs the portal and a baseline that stands for the machine's
 * limit in the same run, and prints both and their ratio. Loopback only, bounded in time.
 * BENCH_DATABASE_URL points at a PostgreSQL server; otherwise a disposable embedded one is used.
 */
async function platformOverhead(environment: BenchEnvironment, portalUrl: string) {
  const pool = createPool(environment.systemUrl, { max: 5 });
  const baseline = Fastify();
  baseline.get('/readyz', async () => {
    await pool.query('SELECT 1');
    return { success: true, data: { status: 'ready' } };
  });
  const baselineUrl = await baseline.listen({ port: 0, host: '127.0.0.1' });
  try {
    const portal = await measure('portal GET /readyz', { url: `${portalUrl}/readyz` });
    const bare = await measure('bare fastify + SELECT 1', { url: `${baselineUrl}/readyz` });
    printComparison('Platform overhead (one system-database round trip per request)', portal, bare);
  } finally {
    await baseline.close();
    await pool.end();
  }
}

/**
 * Logins against bcrypt's own rate on this machine. Each request logs in another of the bench's
 * customers from another address: logins of one account at once count as attempts until their
 * password is compared (five lock it, docs/security.md), and one address meets the per-IP limit.
 */
async function loginThroughput(environment: BenchEnvironment, portalUrl: string) {
  await addCustomers(environment);
  const hash = await bcrypt.hash(BENCH_PASSWORD, BCRYPT_COST);
  const raw = await poolRate(5, () => bcrypt.compare(BENCH_PASSWORD, hash));
  let counter = 0;
  const loginLoad = (name: string) =>
    measure(name, {
      url: `${portalUrl}/portal/auth/login`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      connections: 8,
      durationSeconds: 8,
      setupRequest: (request) => {
        counter += 1;
        const ip = `10.${(counter >> 16) & 255}.${(counter >> 8) & 255}.${counter & 255}`;
        return {
          ...request,
          headers: { ...request.headers, 'x-forwarded-for': ip },
          body: JSON.stringify({
            identifier: benchCustomerDni(counter % BENCH_USERS),
            identifier_type: 'dni',
            password: BENCH_PASSWORD,
            tenant_id: 1,
            sucursal_id: 1,
          }),
        };
      },
    });
  const logins = await loginLoad('portal POST /portal/auth/login');
  const [healthUnderLoad, idleHealth] = await eventLoopUnder(portalUrl, 'logins', () =>
    loginLoad('logins (background)'),
  );
  const rawRow = rawRate(`raw bcrypt-${BCRYPT_COST} compare`, raw);
  printComparison('Logins against the machine’s bcrypt rate', logins, rawRow);
  printTable('Event loop while logins saturate the CPU', [healthUnderLoad, idleHealth]);
}

async function main(): Promise<void> {
  const only = process.argv[2];
  // Statements need only reports processes of their own: no database, no portal to start.
  if (only === 'estado-cuenta') return statementRenders();
  if (only === 'fairness') return receiptFairness();
  // The browser scenario runs the portal as its own process on its own databases.
  if (only === 'web') return webFirstPage();
  // The API in its own process, serving the built client, on its own databases.
  if (only === 'tenant-pages') return tenantPages();
  // Its own PostgreSQL, with the default max_connections of 100.
  if (only === 'avisos-discovery') return reminderDiscoveryAtScale();
  // The burst runs one portal instance of its own, in its own process: none may share its queues.
  if (only === 'burst') return burstOnItsOwn();
  // Its own environment, portal and fake provider: the ledger is counted after each run.
  if (only === 'transfers') return transfersBurst();
  // Its own PostgreSQL (restarted on its schedule), instances, reports service and SMTP sink.
  if (only === 'soak') return soakAtMonthEnd(120);
  const environment = await createBenchEnvironment();
  const { app, url, reportsUrl, reportsSecret, gatewayPort } = await startPortal(environment);
  try {
    if (!only || only === 'platform') await platformOverhead(environment, url);
    if (!only || only === 'deudas') await debtsUnderTraffic(environment);
    if (!only || only === 'logs') await requestLogCost(environment);
    if (!only || only === 'session') {
      await sessionVersionCost(environment, { url, token: await loginToken(url) });
    }
    if (!only || only === 'login') await loginThroughput(environment, url);
    if (!only || only === 'webhook') await webhookThroughput(environment, url, gatewayPort);
    if (!only || only === 'qz') await qzSigning(url, await loginToken(url));
    if (!only || only === 'recibo') {
      const token = await loginToken(url);
      await receiptDownloads(environment, { url, token, reportsUrl, reportsSecret }, app.log);
    }
    if (!only || only === 'facturas') {
      const token = await loginToken(url);
      await invoiceDownloads(environment, { url, token, reportsUrl, reportsSecret }, app.log);
    }
    if (!only || only === 'tenants') await tenantScale(environment);
    if (!only || only === 'estado-cuenta-json') await statementJsonUnderLoad(environment);
    if (!only || only === 'avisos') await remindersAtScale(environment);
    if (!only) await statementRenders();
    if (!only) await receiptFairness();
  } finally {
    await app.close();
    await environment.close();
  }
  if (!only) await burstOnItsOwn();
  if (!only) await webFirstPage();
  if (!only) await reminderDiscoveryAtScale();
  if (!only) await tenantPages();
  // The soak's short form: the same faults, minutes apart.
  if (!only) await soakAtMonthEnd(6);
}

async function burstOnItsOwn(): Promise<void> {
  const environment = await createBenchEnvironment();
  try {
    await approvalBurst(environment);
  } catch (error) {
    process.stderr.write(
      `burst: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    throw error;
  } finally {
    await environment.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
