import { randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A local stand-in for Cucuru's collection API (docs/transfers.md "Cucuru"), for `npm start`'s
 * demo tenant and the tests: the edge of the system, speaking the API the provider's folder
 * calls. Accounts per customer id, collections listed with a cursor that ends in `EOF`, one
 * webhook endpoint with the header it was registered with, redeliveries with
 * `X-Redelivery-Attempt`, rejections and settlements. `POST /__fake/transfers` { cvu, amount }
 * "sends a transfer" (the demo's page and `cli` use it).
 */

export interface FakeCollection {
  collection_id: string;
  collection_trace_id: string;
  collector_id: string;
  customer_id: string | null;
  collection_account: string;
  amount: string | number;
  currency_id: string;
  date_time: string;
  status: 'received' | 'settlement' | 'rejected';
  payer_name?: string;
  payer_cuit?: string;
  payer_bank?: string;
}

export interface FakeCucuruOptions {
  apiKey: string;
  collectorId: string;
  /** Collections per page of the list (the cursor's step). */
  pageSize?: number;
  port?: number;
}

export interface TransferSent {
  cvu: string;
  amount: string | number;
  currency?: string;
  payer?: { name?: string; cuit?: string; bank?: string };
  /** Whether the webhook is posted (false: a lost webhook, found by the janitor). */
  notify?: boolean;
  /** Seen by the list this much later than it is notified (a list behind the webhook). */
  status?: FakeCollection['status'];
}

export interface FakeCucuru {
  url: string;
  /** The API's base as `portal.transferencias.cucuru.base_url` takes it. */
  baseUrl: string;
  accounts: Map<string, { account_number: string; alias: string }>;
  collections: FakeCollection[];
  webhook: { url: string; header: { name: string; value: string } } | undefined;
  /** Calls by path, for the tests' counts. */
  calls: Map<string, number>;
  /** Every call answers 503 while set. */
  down: boolean;
  /** A credit arrives: listed at once, notified unless `notify` is false. */
  transfer(sent: TransferSent): Promise<FakeCollection>;
  /** Posts a collection's notification again (a redelivery), with its attempt number. */
  redeliver(collectionId: string, attempt: number): Promise<number>;
  /** The provider rejects a credit (after it was received) and notifies it. */
  reject(collectionId: string): Promise<void>;
  /** The provider settles a credit and posts `settlement_received`. */
  settle(collectionId: string): Promise<void>;
  /** Posts a notification with any body (a lying one, a malformed one). */
  notify(kind: string, body: unknown, header?: { name: string; value: string }): Promise<number>;
  close(): Promise<void>;
}

/** The demo's "send a transfer" page: a CVU and an amount, as a bank app would ask. */
const SEND_PAGE = `<!doctype html>
<html lang="es-AR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Cucuru de prueba: enviar una transferencia</title>
<style>body{font:16px system-ui;max-width:30rem;margin:2rem auto;padding:0 1rem}label{display:block;margin:1rem 0 .25rem}input,button{font:inherit;padding:.5rem;width:100%;box-sizing:border-box}button{margin-top:1rem}</style>
</head><body><h1>Enviar una transferencia (prueba)</h1>
<p>Simula una transferencia desde cualquier banco al CVU de un cliente. El portal la recibe por su aviso y escribe el recibo.</p>
<form id="f"><label for="cvu">CVU (22 dígitos)</label><input id="cvu" name="cvu" inputmode="numeric" pattern="[0-9]{22}" required>
<label for="amount">Importe</label><input id="amount" name="amount" inputmode="decimal" required>
<button>Transferir</button></form><p id="out" role="status"></p>
<script>document.getElementById('f').addEventListener('submit',async(e)=>{e.preventDefault();const f=new FormData(e.target);
const r=await fetch('/__fake/transfers',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({cvu:f.get('cvu'),amount:String(f.get('amount')).replace(',','.')})});
document.getElementById('out').textContent=r.ok?'Transferencia enviada.':'No se pudo: '+(await r.text());});</script>
</body></html>`;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function parse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A day of Argentina (UTC-3) as the list's `date_from`/`date_to` write it. */
function argentineDay(iso: string): string {
  return new Date(new Date(iso).getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
}

export async function startFakeCucuru(options: FakeCucuruOptions): Promise<FakeCucuru> {
  const pageSize = options.pageSize ?? 50;
  let sequence = 0;

  const fake: FakeCucuru = {
    url: '',
    baseUrl: '',
    accounts: new Map(),
    collections: [],
    webhook: undefined,
    calls: new Map(),
    down: false,
    transfer,
    redeliver,
    reject,
    settle,
    notify,
    close,
  };

  async function post(kind: string, body: unknown, attempt: number, header = fake.webhook?.header) {
    if (!fake.webhook) return 0;
    const response = await fetch(`${fake.webhook.url}/${kind}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-redelivery-attempt': String(attempt),
        ...(header && { [header.name]: header.value }),
      },
      body: JSON.stringify(body),
    });
    await response.arrayBuffer();
    return response.status;
  }

  async function notify(kind: string, body: unknown, header?: { name: string; value: string }) {
    return await post(kind, body, 0, header ?? fake.webhook?.header);
  }

  async function transfer(sent: TransferSent): Promise<FakeCollection> {
    sequence += 1;
    const owner = [...fake.accounts].find(([, account]) => account.account_number === sent.cvu);
    const collection: FakeCollection = {
      collection_id: `col-${Date.now().toString(36)}-${sequence}`,
      collection_trace_id: `trace-${sequence}`,
      collector_id: options.collectorId,
      customer_id: owner?.[0] ?? null,
      collection_account: sent.cvu,
      amount: sent.amount,
      currency_id: sent.currency ?? 'ARS',
      date_time: new Date().toISOString(),
      status: sent.status ?? 'received',
      ...(sent.payer?.name !== undefined && { payer_name: sent.payer.name }),
      ...(sent.payer?.cuit !== undefined && { payer_cuit: sent.payer.cuit }),
      ...(sent.payer?.bank !== undefined && { payer_bank: sent.payer.bank }),
    };
    fake.collections.push(collection);
    if (sent.notify !== false) await post('collection_received', collection, 0);
    return collection;
  }

  function find(collectionId: string): FakeCollection {
    const found = fake.collections.find((item) => item.collection_id === collectionId);
    if (!found) throw new Error(`no collection ${collectionId}`);
    return found;
  }

  async function redeliver(collectionId: string, attempt: number): Promise<number> {
    return await post('collection_received', find(collectionId), attempt);
  }

  async function reject(collectionId: string): Promise<void> {
    const collection = find(collectionId);
    collection.status = 'rejected';
    await post('collection_received', collection, 0);
  }

  async function settle(collectionId: string): Promise<void> {
    const collection = find(collectionId);
    collection.status = 'settlement';
    await post('settlement_received', collection, 0);
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    fake.calls.set(url.pathname, (fake.calls.get(url.pathname) ?? 0) + 1);
    const text = await readBody(request);
    if (url.pathname === '/' && request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(SEND_PAGE);
      return;
    }
    if (url.pathname === '/__fake/transfers' && request.method === 'POST') {
      const body = parse(text);
      if (typeof body.cvu !== 'string' || !/^\d{22}$/.test(body.cvu)) {
        return send(response, 400, { error: 'cvu: 22 digits' });
      }
      const amount = typeof body.amount === 'number' ? body.amount : Number(body.amount);
      if (!Number.isFinite(amount) || amount <= 0) return send(response, 400, { error: 'amount' });
      return send(response, 201, await transfer({ cvu: body.cvu, amount: amount.toFixed(2) }));
    }
    if (fake.down) return send(response, 503, { error: 'unavailable' });
    if (
      request.headers['x-cucuru-api-key'] !== options.apiKey ||
      request.headers['x-cucuru-collector-id'] !== options.collectorId
    ) {
      return send(response, 401, { error: 'unauthorized' });
    }
    if (url.pathname === '/app/v1/Collection/accounts/account' && request.method === 'PUT') {
      const body = parse(text);
      const customerId = typeof body.customer_id === 'string' ? body.customer_id : '';
      if (customerId === '') return send(response, 400, { error: 'customer_id' });
      let account = fake.accounts.get(customerId);
      if (!account) {
        const digits = `0000${String(fake.accounts.size + 1).padStart(6, '0')}${String(randomInt(10 ** 11)).padStart(12, '0')}`;
        account = { account_number: digits, alias: `portal.${fake.accounts.size + 1}.cucuru` };
        fake.accounts.set(customerId, account);
      }
      return send(response, 200, { ...account, customer_id: customerId });
    }
    if (url.pathname === '/app/v1/Collection/collections' && request.method === 'GET') {
      const from = url.searchParams.get('date_from') ?? '0000-00-00';
      const to = url.searchParams.get('date_to') ?? '9999-99-99';
      const start = Number(url.searchParams.get('next_page') ?? '0');
      const inRange = fake.collections.filter((item) => {
        const day = argentineDay(item.date_time);
        return day >= from && day <= to;
      });
      const page = inRange.slice(start, start + pageSize);
      const next = start + pageSize < inRange.length ? String(start + pageSize) : 'EOF';
      return send(response, 200, { collections: page, next_page: next });
    }
    if (url.pathname === '/app/v1/Collection/webhooks/endpoint' && request.method === 'POST') {
      const body = parse(text);
      const header = body.header as { name?: unknown; value?: unknown } | undefined;
      if (
        typeof body.url !== 'string' ||
        typeof header?.name !== 'string' ||
        typeof header.value !== 'string'
      ) {
        return send(response, 400, { error: 'url and header' });
      }
      fake.webhook = { url: body.url, header: { name: header.name, value: header.value } };
      return send(response, 200, { url: body.url });
    }
    return send(response, 404, { error: 'not found' });
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => send(response, 500, { error: 'fake failed' }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.baseUrl = `${fake.url}/app/v1`;

  function close(): Promise<void> {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  }

  return fake;
}
