import { randomUUID } from 'node:crypto';
import type { Pool } from 'undici';
import type { FakeCucuru } from '../src/dev/cucuru-fake.js';
import { mercadoPagoNotification, type FakeMercadoPago } from '../test/helpers/fake-gateways.js';

/*
 * The soak's customers (bench/soak.ts): a load balancer over the instances that are up, the
 * figures of each 30-second window, and what a customer does at month-end, sent at a fixed rate
 * whatever the answers take (an open loop, as customers do not wait for each other).
 */

/** What the figures are grouped by. */
export type Kind = 'read' | 'pdf' | 'auth' | 'pay' | 'webhook' | 'staff';
export const KINDS: readonly Kind[] = ['read', 'pdf', 'auth', 'pay', 'webhook', 'staff'];

/** An instance behind the balancer: requests go to it while `up`. */
export interface Instance {
  readonly name: string;
  url: string;
  up: boolean;
  /** When the bench killed it: a connection it cut then is the kill's, not a lost answer. */
  killedAt: number;
  pool: Pool | undefined;
}

export interface Answer {
  status: number;
  body: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

/** One 30-second window's figures, and the whole run's. */
export class Figures {
  latencies = new Map<Kind, number[]>();
  statuses = new Map<number, number>();
  requests = 0;
  /** Requests that got no HTTP answer (a reset, a hang past the timeout) and were not the kill's. */
  unanswered = 0;
  /** Requests cut by an instance's SIGKILL and sent again to another instance. */
  cutByKill = 0;
  /** What the unanswered requests met, by message. */
  failures = new Map<string, number>();
  /** Answers of 400 and above by kind, status and the envelope's code. */
  refusals = new Map<string, number>();

  add(kind: Kind, ms: number, status: number): void {
    this.requests += 1;
    const list = this.latencies.get(kind) ?? [];
    list.push(ms);
    this.latencies.set(kind, list);
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }

  refuse(what: string): void {
    this.refusals.set(what, (this.refusals.get(what) ?? 0) + 1);
  }

  fail(message: string): void {
    this.unanswered += 1;
    this.failures.set(message, (this.failures.get(message) ?? 0) + 1);
  }

  percentile(kind: Kind, p: number): number | undefined {
    const list = this.latencies.get(kind);
    if (!list || list.length === 0) return undefined;
    const sorted = [...list].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  }

  /** The p99 of every request of the window. */
  p99All(): number | undefined {
    const all = [...this.latencies.values()].flat().sort((a, b) => a - b);
    return all.length === 0 ? undefined : all[Math.floor(0.99 * (all.length - 1))];
  }
}

const REQUEST_TIMEOUT_MS = 30_000;

/** Requests spread over the instances that are up, round robin, as a reverse proxy does. */
export class Balancer {
  private next = 0;
  window = new Figures();
  readonly total = new Figures();

  constructor(readonly instances: Instance[]) {}

  private pick(avoid?: Instance): Instance | undefined {
    const up = this.instances.filter((instance) => instance.up && instance !== avoid);
    if (up.length === 0) return undefined;
    this.next = (this.next + 1) % up.length;
    return up[this.next];
  }

  /**
   * Sends the request; an answer of any status is returned. A connection the bench's own SIGKILL
   * cut is sent once more to another instance (a proxy retries a request its upstream dropped);
   * anything else without an answer is counted unanswered and resolves undefined. `dropAnswer`
   * reads the status and closes the connection without the body, as a mobile link loses an
   * answer the server has sent.
   */
  async send(
    kind: Kind,
    method: 'GET' | 'POST',
    path: string,
    options: {
      headers?: Record<string, string>;
      /** Sent as JSON. */
      body?: unknown;
      /** Sent as it is (a proxied request's own body and headers). */
      raw?: Buffer;
      dropAnswer?: boolean;
    } = {},
  ): Promise<Answer | undefined> {
    let avoid: Instance | undefined;
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const instance = this.pick(avoid);
      if (!instance?.pool) {
        this.record((figures) => figures.fail('no instance up'));
        return undefined;
      }
      const started = performance.now();
      const sentAt = Date.now();
      try {
        const answer = await instance.pool.request({
          method,
          path,
          headers: {
            ...(options.body !== undefined && { 'content-type': 'application/json' }),
            ...options.headers,
          },
          ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
          ...(options.raw !== undefined && { body: options.raw }),
          headersTimeout: REQUEST_TIMEOUT_MS,
          bodyTimeout: REQUEST_TIMEOUT_MS,
        });
        if (options.dropAnswer) {
          // The connection goes with the body, as a lost answer's does; its abort is expected.
          answer.body.on('error', () => undefined);
          answer.body.destroy();
          this.record((figures) =>
            figures.add(kind, performance.now() - started, answer.statusCode),
          );
          return { status: answer.statusCode, body: Buffer.alloc(0), headers: answer.headers };
        }
        const body = Buffer.from(await answer.body.arrayBuffer());
        this.record((figures) => figures.add(kind, performance.now() - started, answer.statusCode));
        if (answer.statusCode >= 400) {
          const code = /"code":"([A-Z_]+)"/.exec(body.toString('utf8'))?.[1] ?? '-';
          this.total.refuse(
            `${kind} ${method} ${path.split('?')[0]?.replace(/\/(?:[0-9a-f-]{6,}|\d+)(?=\/|$)/g, '/:id')} ${answer.statusCode} ${code}`,
          );
        }
        return { status: answer.statusCode, body, headers: answer.headers };
      } catch (error) {
        const killed = instance.killedAt >= sentAt - 1_000;
        if (killed && attempt === 1) {
          this.record((figures) => (figures.cutByKill += 1));
          avoid = instance;
          continue;
        }
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        this.record((figures) => figures.fail(`${kind} ${message}`));
        return undefined;
      }
    }
    return undefined;
  }

  private record(update: (figures: Figures) => void): void {
    update(this.window);
    update(this.total);
  }

  /** The window's figures, and a new window. */
  turn(): Figures {
    const ended = this.window;
    this.window = new Figures();
    return ended;
  }
}

/** A JSON answer's `data`, or undefined for anything else. */
export function dataOf<T>(answer: Answer | undefined): T | undefined {
  if (!answer || answer.status !== 200) return undefined;
  try {
    return (JSON.parse(answer.body.toString('utf8')) as { data?: T }).data;
  } catch {
    return undefined;
  }
}

export interface Customer {
  readonly cnro: number;
  readonly dni: string;
  /** The address the proxy says it comes from (per-address limits are per customer here). */
  readonly ip: string;
  access: string | undefined;
  refresh: string | undefined;
  tokenAt: number;
  /** Not chosen to pay again before this time (a payment of theirs is in flight). */
  busyUntil: number;
}

/** What the bench meant each payment it started to become. */
export type Outcome = 'approved' | 'rejected' | 'abandoned';

export interface SoakWorld {
  balancer: Balancer;
  customers: Customer[];
  /** Customers who generate coupons and never pay online (a coupon holds nothing online). */
  couponCustomers: Customer[];
  /** Customers who pay by bank transfer to their CVU (each credit pays their oldest debts). */
  transferCustomers: Customer[];
  cucuru: FakeCucuru;
  /** The CVU of a transfer customer (the seed's, in the provider's and the portal's records). */
  cvuOf: (cnro: number) => string;
  /** Transfer customers who have seen their CVU (`GET /portal/transferencia`). */
  cvuShown: Set<number>;
  password: string;
  origin: string;
  mp: FakeMercadoPago;
  staffToken: () => string;
  checkoutTtlMs: number;
  /** Payments started, by id, with what the bench meant them to become. */
  started: Map<number, Outcome>;
  /** Notifications lost on purpose (the janitor or the customer's look must find them). */
  lost: { count: number };
  duplicated: { count: number };
  /** Timers of notifications and looks still to come: the load's end waits for them. */
  pending: Set<Promise<void>>;
}

const TOKEN_LIFE_MS = 50 * 60_000;

function headersOf(customer: Customer): Record<string, string> {
  return {
    'x-forwarded-for': customer.ip,
    ...(customer.access !== undefined && { authorization: `Bearer ${customer.access}` }),
  };
}

async function login(world: SoakWorld, customer: Customer): Promise<boolean> {
  const answer = await world.balancer.send('auth', 'POST', '/portal/auth/login', {
    headers: { 'x-forwarded-for': customer.ip },
    body: {
      identifier: customer.dni,
      identifier_type: 'dni',
      password: world.password,
      tenant_id: 1,
      sucursal_id: 1,
    },
  });
  return keepPair(customer, answer);
}

/** The pair a login or refresh answered, kept by the customer; false when it answered none. */
function keepPair(customer: Customer, answer: Answer | undefined): boolean {
  const data = dataOf<{ access_token: string; refresh_token: string }>(answer);
  if (!data) return false;
  customer.access = data.access_token;
  customer.refresh = data.refresh_token;
  customer.tokenAt = Date.now();
  return true;
}

/**
 * A rotation of the customer's pair; one in ten answers is lost on the way (the status read, the
 * body dropped), and the customer then presents the same token again, as the web client does
 * after a failed request: within the refresh grace it gets a working pair.
 */
async function refresh(world: SoakWorld, customer: Customer): Promise<boolean> {
  if (customer.refresh === undefined) return login(world, customer);
  const request = {
    headers: { 'x-forwarded-for': customer.ip },
    body: { refresh_token: customer.refresh },
  };
  if (Math.random() < 0.1) {
    await world.balancer.send('auth', 'POST', '/portal/auth/refresh-token', {
      ...request,
      dropAnswer: true,
    });
  }
  const answer = await world.balancer.send('auth', 'POST', '/portal/auth/refresh-token', request);
  return keepPair(customer, answer) || login(world, customer);
}

async function signedIn(world: SoakWorld, customer: Customer): Promise<boolean> {
  if (customer.access === undefined) return login(world, customer);
  if (Date.now() - customer.tokenAt > TOKEN_LIFE_MS) return refresh(world, customer);
  return true;
}

/** A customer's GET; a 401 (a session another rotation ended) signs in again once. */
async function read(world: SoakWorld, customer: Customer, kind: Kind, path: string) {
  if (!(await signedIn(world, customer))) return undefined;
  const answer = await world.balancer.send(kind, 'GET', path, { headers: headersOf(customer) });
  if (answer?.status === 401 && (await login(world, customer))) {
    return world.balancer.send(kind, 'GET', path, { headers: headersOf(customer) });
  }
  return answer;
}

const pick = <T>(items: readonly T[]): T | undefined =>
  items[Math.floor(Math.random() * items.length)];

interface Debt {
  id: string;
  debe: number;
  pago_en_curso: { id: number } | null;
}

/** Waits `ms`, as part of the load the end waits for. */
function later(world: SoakWorld, ms: number, work: () => Promise<void>): void {
  const done: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, ms))
    .then(work)
    .catch(() => undefined)
    .finally(() => world.pending.delete(done));
  world.pending.add(done);
}

/**
 * Mercado Pago's notification of a payment, signed as the tests' fake signs it, to the address the
 * portal gave the gateway, through whichever instance the balancer picks.
 */
async function notify(world: SoakWorld, notificationUrl: string, gatewayPaymentId: string) {
  const url = new URL(notificationUrl);
  url.searchParams.set('data.id', gatewayPaymentId);
  url.searchParams.set('type', 'payment');
  const { headers, payload } = mercadoPagoNotification(url.search.slice(1), gatewayPaymentId);
  await world.balancer.send('webhook', 'POST', `${url.pathname}${url.search}`, {
    headers,
    body: payload,
  });
}

/**
 * A payment of the customer's oldest debt: its checkout started (one start in twenty loses its
 * answer and is sent again with the same Idempotency-Key), then paid at the fake gateway and
 * approved or rejected there, or abandoned. A notification is sent once, twice (one in ten), or
 * never (one in ten: the janitor, or the customer's look at the payment, must find it); three
 * customers in five look at the payment as the result page does.
 */
async function pay(world: SoakWorld, customer: Customer): Promise<void> {
  customer.busyUntil = Date.now() + 60_000;
  const debts = dataOf<{ items: Debt[] }>(await read(world, customer, 'read', '/portal/deudas'));
  const oldest = debts?.items[0];
  if (!oldest || debts.items.some((debt) => debt.pago_en_curso !== null)) return;
  const key = randomUUID();
  const start = () =>
    world.balancer.send('pay', 'POST', '/portal/pagos/iniciar', {
      headers: { ...headersOf(customer), origin: world.origin, 'idempotency-key': key },
      body: { facturas: [{ id: oldest.id, monto: oldest.debe }], total: oldest.debe },
      dropAnswer: Math.random() < 0.05,
    });
  let answer = await start();
  if (answer && answer.body.length === 0) answer = await start();
  const data = dataOf<{ payment_id: number; redirect_url: string }>(answer);
  if (!data) return;
  const preferenceId = new URL(data.redirect_url).searchParams.get('pref_id') ?? '';
  const preference = world.mp.preferences.get(preferenceId);
  if (!preference) return;
  const roll = Math.random();
  const outcome: Outcome = roll < 0.72 ? 'approved' : roll < 0.86 ? 'rejected' : 'abandoned';
  world.started.set(data.payment_id, outcome);
  if (outcome === 'abandoned') {
    customer.busyUntil = Date.now() + world.checkoutTtlMs + 120_000;
    return;
  }
  // Free again once the outcome is known: soon after the notification, or once the janitor's
  // first look (2 minutes) has found a lost one; the next payment takes the next debt.
  customer.busyUntil = Date.now() + 40_000;
  const items = (preference.items ?? []) as { unit_price: number }[];
  const amount = items.reduce((sum, item) => sum + item.unit_price, 0);
  later(world, 1_000 + Math.random() * 3_000, async () => {
    const gatewayPaymentId = world.mp.addPayment({
      status: outcome,
      status_detail: outcome === 'approved' ? 'accredited' : 'cc_rejected_other_reason',
      transaction_amount: amount,
      external_reference: preference.external_reference,
      date_created: new Date().toISOString(),
    });
    const fate = Math.random();
    if (fate < 0.1) {
      world.lost.count += 1;
      customer.busyUntil = Date.now() + 3 * 60_000;
    } else await notify(world, String(preference.notification_url), gatewayPaymentId);
    if (fate >= 0.1 && fate < 0.2) {
      world.duplicated.count += 1;
      later(world, 200 + Math.random() * 2_000, () =>
        notify(world, String(preference.notification_url), gatewayPaymentId),
      );
    }
    if (Math.random() < 0.6) {
      for (const wait of [1_000, 3_000]) {
        later(world, wait, async () => {
          await read(world, customer, 'pay', `/portal/pagos/${data.payment_id}`);
        });
      }
    }
  });
}

/** Downloads the first document a listing says has a PDF (`pdf: false` has none), if any. */
async function listAndDownload(
  world: SoakWorld,
  customer: Customer,
  list: string,
  pdf: (id: string) => string,
): Promise<void> {
  const listed = dataOf<{ items?: { id: string; pdf?: boolean }[] }>(
    await read(world, customer, 'read', list),
  );
  const first = listed?.items?.find((item) => item.pdf !== false);
  if (first && Math.random() < 0.5) await read(world, customer, 'pdf', pdf(first.id));
}

async function coupon(world: SoakWorld, customer: Customer | undefined): Promise<void> {
  if (!customer) return;
  const debts = dataOf<{ items: Debt[] }>(await read(world, customer, 'read', '/portal/deudas'));
  const oldest = debts?.items[0];
  if (!oldest) return;
  await world.balancer.send('pay', 'POST', '/portal/cupones/generar', {
    headers: { ...headersOf(customer), 'idempotency-key': randomUUID() },
    body: { facturas: [{ id: oldest.id, monto: oldest.debe }], total: oldest.debe },
  });
}

/**
 * A transfer to the customer's CVU, made at the bank: the customer looked at the CVU first (the
 * first look marks the tenant and registers the webhook); one webhook in ten is lost, for the
 * janitor's list to find.
 */
async function transfer(world: SoakWorld, customer: Customer | undefined): Promise<void> {
  if (!customer) return;
  if (!world.cvuShown.has(customer.cnro)) {
    const shown = await read(world, customer, 'read', '/portal/transferencia');
    if (shown?.status !== 200) return;
    world.cvuShown.add(customer.cnro);
  }
  await world.cucuru.transfer({
    cvu: world.cvuOf(customer.cnro),
    amount: '700.00',
    notify: Math.random() >= 0.1,
  });
}

async function staff(world: SoakWorld): Promise<void> {
  const path = Math.random() < 0.5 ? '/portal/comercio/resumen' : '/portal/comercio/pagos';
  await world.balancer.send('staff', 'GET', path, {
    headers: { authorization: `Bearer ${world.staffToken()}` },
  });
}

interface Action {
  weight: number;
  run: (world: SoakWorld, customer: Customer) => Promise<unknown>;
  /** Only for a customer with no payment in flight. */
  free?: true;
}

/** What one customer action is, by weight. */
const ACTIONS: Action[] = [
  { weight: 24, run: (world, customer) => read(world, customer, 'read', '/portal/deudas') },
  { weight: 8, run: (world, customer) => read(world, customer, 'read', '/portal/mi-cuenta') },
  { weight: 7, run: (world, customer) => read(world, customer, 'read', '/portal/estado-cuenta') },
  {
    weight: 2,
    run: (world, customer) => read(world, customer, 'pdf', '/portal/estado-cuenta/pdf'),
  },
  {
    weight: 5,
    run: (world, customer) =>
      listAndDownload(world, customer, '/portal/facturas', (id) => `/portal/facturas/${id}/pdf`),
  },
  {
    weight: 5,
    run: (world, customer) =>
      listAndDownload(world, customer, '/portal/recibos', (id) => `/portal/recibos/${id}/pdf`),
  },
  { weight: 8, run: (world, customer) => read(world, customer, 'read', '/portal/pagos/historial') },
  { weight: 4, run: refresh },
  { weight: 1, run: login },
  { weight: 12, run: pay, free: true },
  { weight: 3, run: (world) => coupon(world, pick(world.couponCustomers)) },
  { weight: 3, run: (world) => transfer(world, pick(world.transferCustomers)) },
  { weight: 6, run: (world) => staff(world) },
];
const WEIGHT = ACTIONS.reduce((sum, action) => sum + action.weight, 0);

/** One action of a customer picked at random (one free to pay, for a payment). */
export function act(world: SoakWorld): Promise<unknown> {
  let roll = Math.random() * WEIGHT;
  const action = ACTIONS.find((candidate) => (roll -= candidate.weight) < 0) ?? ACTIONS[0];
  const now = Date.now();
  const customer = pick(
    action?.free
      ? world.customers.filter((candidate) => candidate.busyUntil < now)
      : world.customers,
  );
  if (!action || !customer) return Promise.resolve();
  return action.run(world, customer).catch(() => undefined);
}

/** Signs in every customer before the clock starts (a morning's first logins, not measured). */
export async function signInAll(world: SoakWorld, concurrency: number): Promise<void> {
  const queue = [...world.customers, ...world.couponCustomers, ...world.transferCustomers];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let customer = queue.shift(); customer; customer = queue.shift()) {
        await login(world, customer);
      }
    }),
  );
}
