import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createServer } from 'node:http';
import { Pool } from 'undici';
import { startFakeCucuru, type FakeCucuru } from '../src/dev/cucuru-fake.js';
import { insertFiscalDocument, insertIssuer, TWO_RATE_BODY } from '../src/dev/fiscal-fixture.js';
import {
  allowGateways,
  FakeMercadoPago,
  FakeUala,
  mercadoPagoIni,
  startFakeGateways,
} from '../test/helpers/fake-gateways.js';
import { startOwnCluster } from '../test/helpers/own-cluster.js';
import { freePort } from '../test/helpers/ports.js';
import { mintStaffToken, staffDoorSettings, staffKeyPair } from '../test/helpers/staff.js';
import { startTcpProxy } from '../test/helpers/tcp-proxy.js';
import { reportsChildPid, startBenchReports } from './reports-service.js';
import { startNode, type Child } from './deudas.js';
import { attachedReceiptNumber, startSmtpSink } from './smtp-sink.js';
import { BENCH_PASSWORD, createBenchEnvironment } from './environment.js';
import {
  act,
  Balancer,
  KINDS,
  signInAll,
  type Customer,
  type Figures,
  type Instance,
  type SoakWorld,
} from './soak-load.js';

/*
 * Month-end for hours (docs/benchmarks.md "The soak"): production instances sharing a PostgreSQL
 * of the bench's own and a Redis (behind a TCP proxy the bench can cut), one reports service, an
 * SMTP sink and the fake Mercado Pago; customers at a fixed rate (bench/soak-load.ts) while, on a
 * schedule, PostgreSQL restarts, an instance is killed with SIGKILL and started again, Redis is
 * down for 30 s, the reports service is killed and SMTP refuses mail for 2 minutes. Every 30 s
 * one line of figures; at the end, what the databases and the SMTP sink say, not the bench's own
 * counters: every approved payment has one receipt, one cash movement and one "Recibimos tu
 * pago"; nothing is left in flight or waiting; no receipt without its payment; every request got
 * an answer.
 *
 * BENCH_SOAK_MINUTES (default 120 alone, 6 in the whole `npm run bench`), BENCH_SOAK_RATE
 * (customer actions a second, default 20), BENCH_SOAK_INSTANCES (default 2),
 * BENCH_SOAK_CUSTOMERS (default 600).
 */

const RATE = Number(process.env.BENCH_SOAK_RATE ?? 20);
const INSTANCES = Number(process.env.BENCH_SOAK_INSTANCES ?? 2);
const CUSTOMERS = Number(process.env.BENCH_SOAK_CUSTOMERS ?? 600);
const COUPON_CUSTOMERS = 40;
const DEBTS_PER_CUSTOMER = 40;
const FIRST_CNRO = 10_000;
const FIRST_COUPON_CNRO = 100;
const TRANSFER_CUSTOMERS = 60;
const FIRST_TRANSFER_CNRO = 200;
const CUCURU = { apiKey: 'soak-cucuru-key', collectorId: 'soak-collector' };
const CUCURU_WEBHOOK_TOKEN = randomBytes(12).toString('hex');
const cvuOf = (cnro: number) => `0000${String(cnro).padStart(18, '0')}`;
const WINDOW_MS = 30_000;
const CHECKOUT_TTL_MINUTES = 5;
const ORIGIN = 'https://portal.example.com';
const WEBHOOK_TOKEN = randomBytes(12).toString('hex');
const REDIS_DOWN_MS = 30_000;
const SMTP_REFUSING_MS = 120_000;

/** The SMTP sink: each "Recibimos tu pago" and "Recibimos tu transferencia" by receipt number. */
async function startSink() {
  const receipts = new Map<string, number>();
  const transferReceipts = new Map<string, number>();
  const state = { refusing: false, refused: 0 };
  const sink = await startSmtpSink({
    keepBody: true,
    refusing: () => {
      if (state.refusing) state.refused += 1;
      return state.refusing;
    },
    onMessage(raw) {
      const number = attachedReceiptNumber(raw);
      if (/^Subject: Recibimos tu pago/m.test(raw)) {
        receipts.set(number, (receipts.get(number) ?? 0) + 1);
      } else if (/^Subject: Recibimos tu transferencia/m.test(raw)) {
        transferReceipts.set(number, (transferReceipts.get(number) ?? 0) + 1);
      }
    },
  });
  return { ...sink, receipts, transferReceipts, state };
}

/** An HTTP front over the balancer: a request to it goes to an instance that is up. */
async function startFront(balancer: Balancer) {
  const hopByHop = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);
  const server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string' && !hopByHop.has(name)) headers[name] = value;
      }
      const answer = await balancer.send(
        'webhook',
        request.method === 'GET' ? 'GET' : 'POST',
        request.url ?? '/',
        { headers, raw: Buffer.concat(chunks) },
      );
      if (!answer) {
        response.writeHead(502).end();
        return;
      }
      const type = answer.headers['content-type'];
      response
        .writeHead(answer.status, typeof type === 'string' ? { 'content-type': type } : {})
        .end(answer.body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('front not on TCP');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether something answers on the Redis URL's port (the soak needs a Redis to share). */
function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port || 6379), hostname, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** The tenant's settings and the soak's customers: debts, a fiscal invoice each, registered. */
async function seed(
  tenantUrl: string,
  gatewayUrl: string,
  smtpPort: number,
  cucuru: FakeCucuru,
): Promise<void> {
  const client = new pg.Client({ connectionString: tenantUrl });
  await client.connect();
  try {
    const settings = {
      ...mercadoPagoIni({ url: gatewayUrl }),
      'portal.webhook_token': WEBHOOK_TOKEN,
      'portal.recibo.cuenta_bancaria': 'Banco Soak CC 1',
      'portal.recibo.caja_schema': 'caja',
      'mail.smtp.host': '127.0.0.1',
      'mail.smtp.port': String(smtpPort),
      'mail.from': 'Soak <avisos@soak.example>',
      'portal.transferencias.proveedor': 'cucuru',
      'portal.transferencias.cucuru.api_key': CUCURU.apiKey,
      'portal.transferencias.cucuru.collector_id': CUCURU.collectorId,
      'portal.transferencias.cucuru.base_url': cucuru.baseUrl,
      'portal.transferencias.cucuru.webhook_token': CUCURU_WEBHOOK_TOKEN,
    };
    for (const [clave, valor] of Object.entries(settings)) {
      await client.query('INSERT INTO public.ini (clave, valor) VALUES ($1, $2)', [clave, valor]);
    }
    for (const [first, count] of [
      [FIRST_CNRO, CUSTOMERS],
      [FIRST_COUPON_CNRO, COUPON_CUSTOMERS],
      [FIRST_TRANSFER_CNRO, TRANSFER_CUSTOMERS],
    ] as const) {
      const last = first + count - 1;
      await client.query(
        `INSERT INTO suc0001.ordcon
         SELECT n, 'Cliente ' || n, (40000000 + n)::text FROM generate_series($1::int, $2::int) n`,
        [first, last],
      );
      await client.query(
        `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
         SELECT c, 'FAC', 'Factura B', lpad(c::text, 5, '0') || '-' || lpad(d::text, 8, '0'),
                current_date - 60 + d, current_date - 30 + d, 1000 + d * 17.35, 1000 + d * 17.35
           FROM generate_series($1::int, $2::int) c, generate_series(1, $3::int) d`,
        [first, last, DEBTS_PER_CUSTOMER],
      );
    }
    await client.query(
      `INSERT INTO suc0001.portal_users (cnro, dni_cuit, email, password_hash)
       SELECT o.cnro, o.ccui, 'soak' || o.cnro || '@example.com', u.password_hash
         FROM suc0001.ordcon o, (SELECT password_hash FROM suc0001.portal_users LIMIT 1) u
        WHERE o.cnro <> 1`,
    );
    // The transfer customers' CVUs, as the provider assigned them.
    for (
      let cnro = FIRST_TRANSFER_CNRO;
      cnro < FIRST_TRANSFER_CNRO + TRANSFER_CUSTOMERS;
      cnro += 1
    ) {
      const customerId = `t1-suc0001-${cnro}`;
      cucuru.accounts.set(customerId, { account_number: cvuOf(cnro), alias: `soak.${cnro}` });
      await client.query(
        `INSERT INTO public.portal_transfer_accounts
           (tenant_id, provider, sucursal_id, customer_schema, cnro, customer_id, cvu, alias)
         VALUES (1, 'cucuru', 1, 'suc0001', $1, $2, $3, $4)`,
        [cnro, customerId, cvuOf(cnro), `soak.${cnro}`],
      );
    }
    // A Factura A with its CAE for each customer, apart from the debts they pay.
    const run = (text: string, values?: unknown[]) => client.query(text, values);
    await insertIssuer(run, {
      cuit: '30714589632',
      razon_social: 'Soak S.A.',
      domicilio: 'Av. Corrientes 1234, CABA',
      cond_iva: 'IVA Responsable Inscripto',
      iibb: '901-714589-6',
      inicio_actividades: '2012-04-02',
    });
    const { rows } = await client.query<{ id: string; cnro: number }>(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, debe, saldo)
       SELECT cnro, 'FAC', 'Factura A', '00002-' || lpad(cnro::text, 8, '0'), current_date - 90, 0, 0
         FROM suc0001.ordcon WHERE cnro <> 1
       RETURNING id::text AS id, cnro`,
    );
    for (const row of rows) {
      await insertFiscalDocument(run, 'suc0001', {
        ordcta_id: row.id,
        tipo_cbte: 1,
        letra: 'A',
        punto_venta: 2,
        numero: row.cnro,
        fecha: new Date(Date.now() - 90 * 86_400_000).toISOString().slice(0, 10),
        cae: '76123456789012',
        cae_vto: '2099-12-31',
        doc_tipo: 80,
        doc_nro: '20301112223',
        receptor_nombre: `Cliente ${row.cnro}`,
        receptor_domicilio: 'Mitre 55, Rosario',
        receptor_cond_iva: 'IVA Responsable Inscripto',
        ...TWO_RATE_BODY,
      });
    }
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
}

/** Resident memory of a process in MB, 0 when it is gone. */
async function rssMb(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

interface Window {
  at: number;
  figures: Figures;
  rss: number[];
  reportsRss: number;
  connections: number | undefined;
  waiting: Map<string, number> | undefined;
}

interface Fault {
  name: string;
  /** Fraction of the run at which it starts. */
  at: number;
  run: () => Promise<void>;
  startedAt?: number;
  endedAt?: number;
}

const say = (line: string) => process.stdout.write(`${line}\n`);
const ms = (value: number | undefined) => (value === undefined ? '-' : value.toFixed(0));

function windowLine(window: Window, startedAt: number): string {
  const { figures } = window;
  const kinds = KINDS.filter((kind) => figures.latencies.has(kind))
    .map(
      (kind) => `${kind} ${ms(figures.percentile(kind, 50))}/${ms(figures.percentile(kind, 99))}`,
    )
    .join(' ');
  const non2xx = [...figures.statuses]
    .filter(([status]) => status >= 300)
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}:${count}`)
    .join(' ');
  const waiting = window.waiting
    ? [...window.waiting].map(([queue, age]) => `${queue} ${age.toFixed(0)}s`).join(' ') || 'none'
    : '-';
  return [
    `${((window.at - startedAt) / 60_000).toFixed(1).padStart(6)} min`,
    `${(figures.requests / (WINDOW_MS / 1000)).toFixed(1)} req/s`,
    `p50/p99 ms ${kinds}`,
    `non-2xx ${non2xx || 'none'}`,
    figures.unanswered + figures.cutByKill > 0
      ? `unanswered ${figures.unanswered} cut-by-kill ${figures.cutByKill}`
      : '',
    `RSS MB ${window.rss.map((value) => value.toFixed(0)).join('/')} reports ${window.reportsRss.toFixed(0)}`,
    `pg conns ${window.connections ?? '-'}`,
    `oldest waiting ${waiting}`,
  ]
    .filter(Boolean)
    .join(' | ');
}

export async function soakAtMonthEnd(defaultMinutes: number): Promise<void> {
  const minutes = Number(process.env.BENCH_SOAK_MINUTES ?? defaultMinutes);
  const durationMs = minutes * 60_000;
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  say(
    `\n## The soak: ${minutes} min, ${RATE} customer actions/s, ${INSTANCES} instances, ` +
      `${CUSTOMERS} customers, faults on a schedule`,
  );
  if (!(await reachable(redisUrl))) {
    say(`skipped: no Redis at ${redisUrl} (REDIS_URL) for the instances to share`);
    return;
  }
  // A stray error of the bench's own must not end hours of run before its cleanup: said, counted.
  let benchErrors = 0;
  const onStray = (error: unknown) => {
    benchErrors += 1;
    say(`bench error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  };
  process.on('uncaughtException', onStray);
  process.on('unhandledRejection', onStray);
  // Ctrl-C during hours of run: everything it started is stopped and removed all the same.
  const cleanups: (() => Promise<unknown>)[] = [];
  const onInterrupt = () => {
    say('interrupted: stopping what the soak started');
    void (async () => {
      for (const cleanup of cleanups) await cleanup().catch(() => undefined);
      process.exit(130);
    })();
  };
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onInterrupt);
  const cluster = await startOwnCluster();
  const dir = await mkdtemp(path.join(tmpdir(), 'portal-bench-soak-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  cleanups.push(() => cluster.destroy());
  try {
    const environment = await createBenchEnvironment(cluster.serverUrl);
    cleanups.unshift(() => environment.close());
    const sink = await startSink();
    cleanups.unshift(() => sink.close());
    const mp = new FakeMercadoPago();
    const gateway = await startFakeGateways(mp, new FakeUala());
    cleanups.unshift(() => gateway.close());
    const cucuru = await startFakeCucuru(CUCURU);
    cleanups.unshift(() => cucuru.close());
    await seed(environment.tenantUrl, gateway.url, sink.port, cucuru);

    const reportsUrl = `http://127.0.0.1:${await freePort()}`;
    const reportsSecret = randomBytes(32).toString('hex');
    const reports = await startBenchReports(reportsUrl, reportsSecret, dir);
    cleanups.unshift(() => reports.stop());
    const redis = await startTcpProxy(redisUrl);
    cleanups.unshift(() => redis.close());
    const staffKeys = staffKeyPair();
    let staffToken = await mintStaffToken(staffKeys, { rol: 'lectura' });
    const staffTimer = setInterval(
      () => void mintStaffToken(staffKeys, { rol: 'lectura' }).then((t) => (staffToken = t)),
      10 * 60_000,
    );
    cleanups.unshift(() => Promise.resolve(clearInterval(staffTimer)));

    // What the providers post to (BACKEND_URL): the deployment's address, in front of the
    // instances that are up, as a reverse proxy is.
    const instances: Instance[] = Array.from({ length: INSTANCES }, (_, n) => ({
      name: `api-${n + 1}`,
      url: '',
      up: false,
      killedAt: 0,
      pool: undefined,
    }));
    const balancer = new Balancer(instances);
    const front = await startFront(balancer);
    cleanups.unshift(() => front.close());
    const instanceEnv = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: environment.systemUrl,
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: `soak-${randomBytes(3).toString('hex')}:`,
      PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
      PORTAL_ALLOWED_ORIGIN: ORIGIN,
      PORTAL_REQUIRE_HTTPS: 'false',
      BACKEND_URL: front.url,
      REPORTS_URL: reportsUrl,
      REPORTS_SERVICE_SECRET: reportsSecret,
      TRUST_PROXY: '1',
      PORT: '0',
      PORTAL_DATA_DIR: dir,
      PORTAL_CHECKOUT_TTL_MINUTES: String(CHECKOUT_TTL_MINUTES),
      ...allowGateways(gateway, cucuru),
      ...staffDoorSettings([staffKeys]),
    };
    const children = new Map<Instance, Child>();
    const launch = async (instance: Instance) => {
      const child = await startNode(
        'src/server.ts',
        instanceEnv,
        path.join(dir, `${instance.name}-${Date.now()}.log`),
      );
      children.set(instance, child);
      instance.url = child.url;
      instance.pool = new Pool(new URL(child.url).origin, { connections: 32 });
      instance.up = true;
    };
    for (const instance of instances) await launch(instance);
    cleanups.unshift(async () => {
      for (const [instance, child] of children) {
        instance.up = false;
        if (child.child.exitCode === null && child.child.signalCode === null) {
          child.child.kill('SIGTERM');
          await new Promise((resolve) => child.child.once('exit', resolve));
        }
        await instance.pool?.close();
      }
    });

    const customer = (cnro: number): Customer => ({
      cnro,
      dni: String(40_000_000 + cnro),
      ip: `10.${(cnro >> 16) & 255}.${(cnro >> 8) & 255}.${cnro & 255}`,
      access: undefined,
      refresh: undefined,
      tokenAt: 0,
      busyUntil: 0,
    });
    const world: SoakWorld = {
      balancer,
      customers: Array.from({ length: CUSTOMERS }, (_, n) => customer(FIRST_CNRO + n)),
      couponCustomers: Array.from({ length: COUPON_CUSTOMERS }, (_, n) =>
        customer(FIRST_COUPON_CNRO + n),
      ),
      transferCustomers: Array.from({ length: TRANSFER_CUSTOMERS }, (_, n) =>
        customer(FIRST_TRANSFER_CNRO + n),
      ),
      cucuru,
      cvuOf,
      cvuShown: new Set(),
      password: BENCH_PASSWORD,
      origin: ORIGIN,
      mp,
      staffToken: () => staffToken,
      checkoutTtlMs: CHECKOUT_TTL_MINUTES * 60_000,
      started: new Map(),
      lost: { count: 0 },
      duplicated: { count: 0 },
      pending: new Set(),
    };
    await signInAll(world, 4);
    balancer.turn();
    balancer.total.latencies.clear();
    balancer.total.statuses.clear();
    balancer.total.requests = 0;

    const monitor = new pg.Pool({ connectionString: environment.systemUrl, max: 1 });
    monitor.on('error', () => undefined);
    cleanups.unshift(() => monitor.end());
    const sample = async (): Promise<Window> => {
      const figures = balancer.turn();
      const rss = await Promise.all(
        instances.map((instance) => rssMb(children.get(instance)?.child.pid)),
      );
      let connections: number | undefined;
      let waiting: Map<string, number> | undefined;
      try {
        const counted = await monitor.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'`,
        );
        connections = counted.rows[0]?.n;
        const oldest = await monitor.query<{ name: string; age: number }>(
          `SELECT name, extract(epoch FROM now() - min(created_on))::float AS age
             FROM pgboss.job WHERE state IN ('created', 'retry') AND start_after <= now()
            GROUP BY name ORDER BY name`,
        );
        waiting = new Map(oldest.rows.map((row) => [row.name, row.age]));
      } catch {
        // PostgreSQL is restarting: the line says so with a dash.
      }
      return {
        at: Date.now(),
        figures,
        rss,
        reportsRss: await rssMb(await reportsChildPid()),
        connections,
        waiting,
      };
    };

    const faults: Fault[] = [
      {
        name: 'PostgreSQL restarted',
        at: 0.12,
        run: async () => {
          await cluster.stop();
          await sleep(3_000);
          await cluster.start();
        },
      },
      {
        name: `${instances.at(-1)?.name} killed (SIGKILL) and started again`,
        at: 0.27,
        run: async () => {
          const instance = instances.at(-1);
          const child = instance && children.get(instance);
          if (!instance || !child) return;
          // Out of the balancer first, as a proxy's health check takes it out; what was in flight
          // on it is cut (and sent again to the other instance, counted apart).
          instance.up = false;
          instance.killedAt = Date.now();
          child.child.kill('SIGKILL');
          await new Promise((resolve) => child.child.once('exit', resolve));
          const pool = instance.pool;
          instance.pool = undefined;
          await pool?.destroy();
          await sleep(5_000);
          await launch(instance);
        },
      },
      {
        name: `Redis down for ${REDIS_DOWN_MS / 1000} s`,
        at: 0.42,
        run: async () => {
          await redis.stop();
          await sleep(REDIS_DOWN_MS);
          await redis.start();
        },
      },
      {
        name: 'reports service killed (SIGKILL)',
        at: 0.55,
        run: async () => {
          const pid = await reportsChildPid();
          if (pid) process.kill(pid, 'SIGKILL');
        },
      },
      {
        name: `SMTP refusing for ${SMTP_REFUSING_MS / 60_000} min`,
        at: 0.68,
        run: async () => {
          sink.state.refusing = true;
          await sleep(SMTP_REFUSING_MS);
          sink.state.refusing = false;
        },
      },
    ];

    const startedAt = Date.now();
    const windows: Window[] = [];
    const inFlight = new Set<Promise<unknown>>();
    let issued = 0;
    const ticker = setInterval(() => {
      const due = Math.floor((RATE * (Date.now() - startedAt)) / 1000);
      for (; issued < due; issued += 1) {
        const action = act(world).finally(() => inFlight.delete(action));
        inFlight.add(action);
      }
    }, 50);
    const reporter = setInterval(() => {
      // The fake gateway's record of requests is for tests' asserts: over hours it is only memory.
      gateway.seen.length = 0;
      void sample().then((window) => {
        windows.push(window);
        say(windowLine(window, startedAt));
      });
    }, WINDOW_MS);
    const faulting = (async () => {
      for (const fault of faults) {
        await sleep(Math.max(0, startedAt + fault.at * durationMs - Date.now()));
        fault.startedAt = Date.now();
        say(`  >> ${fault.name}`);
        await fault.run();
        fault.endedAt = Date.now();
        say(`  << ${fault.name}: ${((fault.endedAt - fault.startedAt) / 1000).toFixed(1)} s`);
      }
    })();
    await sleep(durationMs);
    clearInterval(ticker);
    await faulting;
    await Promise.all(inFlight);
    while (world.pending.size > 0) await Promise.all(world.pending);
    clearInterval(reporter);
    const loadEndedAt = Date.now();
    say(
      `load ended: ${issued} customer actions, ${balancer.total.requests} requests answered, ` +
        `${world.started.size} payments started (${world.lost.count} notifications lost on purpose, ` +
        `${world.duplicated.count} sent twice)`,
    );

    const verdict = await settleAndVerify(environment, sink, startedAt, world);
    say(`settled ${((Date.now() - loadEndedAt) / 1000).toFixed(0)} s after the load`);
    printFaults(faults, windows);
    const answered = balancer.total;
    const checks: [string, boolean, string][] = [
      ...verdict,
      [
        'every request answered (a 503 is an answer; a reset or a hang is not)',
        answered.unanswered === 0,
        `${answered.unanswered} unanswered${
          answered.failures.size > 0
            ? `: ${[...answered.failures].map(([m, n]) => `${n}× ${m}`).join('; ')}`
            : ''
        }; ${answered.cutByKill} cut by the SIGKILL and sent to the other instance`,
      ],
    ];
    say('\nWhat the databases and the SMTP sink say:');
    for (const [what, held, detail] of checks) {
      say(`  ${held ? 'ok  ' : 'FAIL'} ${what}: ${detail}`);
    }
    const statuses = [...answered.statuses].sort(([a], [b]) => a - b);
    say(`answers by status: ${statuses.map(([s, n]) => `${s}:${n}`).join(' ')}`);
    say('refusals (4xx and 5xx) by route and code:');
    for (const [what, n] of [...answered.refusals].sort(([, a], [, b]) => b - a)) {
      say(`  ${String(n).padStart(6)} ${what}`);
    }
    if (checks.some(([, held]) => !held)) process.exitCode = 1;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    process.off('uncaughtException', onStray);
    process.off('unhandledRejection', onStray);
    if (benchErrors > 0) say(`${benchErrors} errors of the bench's own (above)`);
  }
}

/**
 * Waits until nothing is in flight (no issued payment, no job waiting, every approved payment's
 * e-mail at the sink), then reads the verdict from the tenant's ledger, pg-boss and the sink.
 */
async function settleAndVerify(
  environment: { systemUrl: string; tenantUrl: string },
  sink: Awaited<ReturnType<typeof startSink>>,
  startedAt: number,
  world: SoakWorld,
): Promise<[string, boolean, string][]> {
  const tenant = new pg.Client({ connectionString: environment.tenantUrl });
  const system = new pg.Client({ connectionString: environment.systemUrl });
  await tenant.connect();
  await system.connect();
  const since = new Date(startedAt - 60_000);
  const one = async <T>(client: pg.Client, text: string, values: unknown[] = []) =>
    (await client.query<T & pg.QueryResultRow>(text, values)).rows;
  const waitingJobs = () =>
    one<{ name: string; state: string; n: number }>(
      system,
      `SELECT name, state::text, count(*)::int AS n FROM pgboss.job
        WHERE state IN ('created', 'retry', 'active', 'failed')
          AND name NOT IN (SELECT name FROM pgboss.schedule)
        GROUP BY 1, 2 ORDER BY 1, 2`,
    );
  try {
    const deadline = Date.now() + (CHECKOUT_TTL_MINUTES + 12) * 60_000;
    for (;;) {
      const [inFlight] = await one<{ n: number }>(
        tenant,
        `SELECT count(*)::int AS n FROM public.portal_payments
          WHERE status IN ('pending', 'issued') AND created_at >= $1`,
        [since],
      );
      const [approved] = await one<{ n: number }>(
        tenant,
        `SELECT count(*)::int AS n FROM public.portal_payments
          WHERE status = 'approved' AND created_at >= $1`,
        [since],
      );
      const [credits] = await one<{ recorded: number; applied: number }>(
        tenant,
        `SELECT count(*)::int AS recorded,
                count(*) FILTER (WHERE estado = 'aplicada')::int AS applied
           FROM public.portal_transfer_credits`,
      );
      const mailed = [...sink.receipts.values()].reduce((sum, n) => sum + n, 0);
      const transfersMailed = [...sink.transferReceipts.values()].reduce((sum, n) => sum + n, 0);
      const jobs = (await waitingJobs()).filter((row) => row.state !== 'failed');
      const settled =
        inFlight?.n === 0 &&
        jobs.length === 0 &&
        mailed >= (approved?.n ?? 0) &&
        credits?.recorded === world.cucuru.collections.length &&
        credits.applied === credits.recorded &&
        transfersMailed >= credits.applied;
      if (settled || Date.now() > deadline) break;
      await sleep(5_000);
    }

    const byStatus = await one<{ status: string; n: number }>(
      tenant,
      `SELECT status, count(*)::int AS n FROM public.portal_payments WHERE created_at >= $1
        GROUP BY 1 ORDER BY 1`,
      [since],
    );
    const rows = await one<{
      id: number;
      status: string;
      receipts: number;
      movements: number;
      nrocomp: string | null;
    }>(
      tenant,
      `SELECT p.id, p.status,
              (SELECT count(*)::int FROM suc0001.ordcta o WHERE o.id::text = p.recibo_id AND o.tipo = 'REC') AS receipts,
              (SELECT count(*)::int FROM caja.movimi m WHERE m.ordcta_id::text = p.recibo_id AND m.tipo = 'INGRESO') AS movements,
              (SELECT o.nrocomp FROM suc0001.ordcta o WHERE o.id::text = p.recibo_id) AS nrocomp
         FROM public.portal_payments p WHERE p.created_at >= $1`,
      [since],
    );
    const approved = rows.filter((row) => row.status === 'approved');
    const badReceipts = approved.filter((row) => row.receipts !== 1 || row.movements !== 1);
    const approvedNumbers = new Set(approved.map((row) => row.nrocomp ?? ''));
    const mailCounts = approved.map((row) => sink.receipts.get(row.nrocomp ?? '') ?? 0);
    const notOnce = mailCounts.filter((n) => n !== 1).length;
    const strayMail = [...sink.receipts.keys()].filter((n) => !approvedNumbers.has(n)).length;
    const [orphans] = await one<{ n: number }>(
      tenant,
      `SELECT count(*)::int AS n FROM suc0001.ordcta o
        WHERE o.tipo = 'REC'
          AND NOT EXISTS (SELECT 1 FROM public.portal_payments p WHERE p.recibo_id = o.id::text)
          AND NOT EXISTS (SELECT 1 FROM public.portal_transfer_credits c WHERE c.recibo_id = o.id)`,
    );
    const credits = await one<{
      estado: string;
      receipts: number;
      movements: number;
      nrocomp: string | null;
    }>(
      tenant,
      `SELECT c.estado,
              (SELECT count(*)::int FROM suc0001.ordcta o WHERE o.id = c.recibo_id AND o.tipo = 'REC') AS receipts,
              (SELECT count(*)::int FROM caja.movimi m WHERE m.ordcta_id = c.recibo_id AND m.tipo = 'INGRESO') AS movements,
              (SELECT o.nrocomp FROM suc0001.ordcta o WHERE o.id = c.recibo_id) AS nrocomp
         FROM public.portal_transfer_credits c`,
    );
    const sentCredits = world.cucuru.collections.length;
    const unapplied = credits.filter(
      (row) => row.estado !== 'aplicada' || row.receipts !== 1 || row.movements !== 1,
    ).length;
    const transferMailNotOnce = credits.filter(
      (row) => sink.transferReceipts.get(row.nrocomp ?? '') !== 1,
    ).length;
    // A payment pays whole debts and a transfer pays them in part, oldest first: what each debt
    // has left plus what receipts applied to it is what the seed issued it for, never below zero.
    const [overpaid] = await one<{ n: number }>(
      tenant,
      `SELECT count(*)::int AS n FROM suc0001.ordcta o
         LEFT JOIN (SELECT factura_id, sum(monto) AS paid FROM suc0001.recfac GROUP BY 1) r
                ON r.factura_id = o.id
        WHERE o.comprobante = 'Factura B' AND o.cnro <> 1
          AND (o.saldo < 0
               OR o.saldo + coalesce(r.paid, 0) <> 1000 + split_part(o.nrocomp, '-', 2)::int * 17.35)`,
    );
    const [held] = await one<{ n: number }>(
      tenant,
      `SELECT count(*)::int AS n FROM public.portal_payments WHERE status IN ('pending', 'issued')`,
    );
    const meant = new Map<string, number>();
    let mismatched = 0;
    for (const row of rows) {
      const outcome = world.started.get(row.id);
      if (outcome === undefined) continue;
      const expected = outcome === 'abandoned' ? 'cancelled' : outcome;
      if (row.status !== expected) {
        mismatched += 1;
        meant.set(`${outcome}→${row.status}`, (meant.get(`${outcome}→${row.status}`) ?? 0) + 1);
      }
    }
    const jobs = await waitingJobs();
    return [
      [
        `every payment ended as the gateway decided it (approved, rejected; abandoned cancelled at expiry): ${byStatus.map((row) => `${row.status} ${row.n}`).join(', ')}`,
        mismatched === 0,
        mismatched === 0
          ? `${world.started.size} payments`
          : `${mismatched} did not: ${[...meant].map(([k, n]) => `${k} ${n}`).join(', ')}`,
      ],
      [
        'every approved payment has exactly one receipt and one cash movement',
        badReceipts.length === 0,
        `${approved.length} approved, ${badReceipts.length} without`,
      ],
      [
        'every approved payment has exactly one "Recibimos tu pago" at the SMTP sink',
        notOnce === 0 && strayMail === 0,
        `${approved.length - notOnce} once, ${notOnce} not once, ${strayMail} for no approved payment; ` +
          `${sink.state.refused} refused while SMTP refused`,
      ],
      [
        'every transfer the provider received is one credit with one receipt and one cash movement',
        credits.length === sentCredits && unapplied === 0,
        `${sentCredits} sent, ${credits.length} recorded, ${unapplied} without`,
      ],
      [
        'every credit has exactly one "Recibimos tu transferencia" at the SMTP sink',
        transferMailNotOnce === 0,
        `${credits.length - transferMailNotOnce} once, ${transferMailNotOnce} not once`,
      ],
      [
        'no receipt without its payment or credit',
        orphans?.n === 0,
        `${orphans?.n ?? '?'} orphans`,
      ],
      [
        'no debt paid twice or beyond its amount (its balance plus its receipts is what it was issued for)',
        overpaid?.n === 0,
        `${overpaid?.n ?? '?'} debts`,
      ],
      [
        'every rejected or abandoned payment released its debts (none left in flight)',
        held?.n === 0,
        `${held?.n ?? '?'} still holding debts`,
      ],
      [
        'no job left failed or waiting',
        jobs.length === 0,
        jobs.length === 0
          ? 'none'
          : jobs.map((row) => `${row.name} ${row.state} ${row.n}`).join(', '),
      ],
    ];
  } finally {
    await tenant.end();
    await system.end();
  }
}

/** Each fault: p99 of all requests before it, during it, and how soon after it ended p99 was back. */
function printFaults(faults: Fault[], windows: Window[]): void {
  if (windows.length === 0) return;
  const plateau = windows[Math.min(3, windows.length - 1)];
  say('\nFaults (p99 of every request, ms; RSS against the first plateau, 2 min in):');
  for (const fault of faults) {
    if (fault.startedAt === undefined || fault.endedAt === undefined) continue;
    const before = windows.filter((w) => w.at <= (fault.startedAt ?? 0)).at(-1);
    const during = windows.filter(
      (w) => w.at > (fault.startedAt ?? 0) && w.at - WINDOW_MS < (fault.endedAt ?? 0),
    );
    const after = windows.filter((w) => w.at - WINDOW_MS >= (fault.endedAt ?? 0));
    const baseline = before?.figures.p99All();
    const back = after.find((w) => {
      const p99 = w.figures.p99All();
      return (
        baseline !== undefined &&
        p99 !== undefined &&
        p99 <= Math.max(baseline * 1.5, baseline + 20)
      );
    });
    const settled = after[2] ?? after.at(-1);
    const ratios =
      settled && plateau ? settled.rss.map((value, n) => value / (plateau.rss[n] || value)) : [];
    const rssHeld = ratios.every((ratio) => ratio <= 1.1);
    const backHeld = back !== undefined && back.at - (fault.endedAt ?? 0) <= 60_000 + WINDOW_MS;
    const rss =
      ratios.length > 0
        ? ratios.map((ratio) => `${(ratio * 100 - 100).toFixed(0)}%`).join('/')
        : '-';
    const worst = Math.max(0, ...during.map((w) => w.figures.p99All() ?? 0));
    const unanswered = during.reduce((sum, w) => sum + w.figures.unanswered, 0);
    const non2xx = during.reduce(
      (sum, w) =>
        sum + [...w.figures.statuses].filter(([s]) => s >= 300).reduce((t, [, n]) => t + n, 0),
      0,
    );
    say(
      `  ${fault.name}: p99 before ${ms(baseline)}, worst during ${ms(worst)}, back ${
        back
          ? `${((back.at - (fault.endedAt ?? 0)) / 1000).toFixed(0)} s after`
          : 'not within the run'
      }${backHeld ? '' : ' (over a minute)'}; non-2xx during ${non2xx}, unanswered ${unanswered}; ` +
        `RSS ${rss}${rssHeld ? '' : ' (over 10 %)'}`,
    );
  }
}
