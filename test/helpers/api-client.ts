import { ORIGIN, loginBody, registerBody } from './auth.js';
import { mercadoPagoNotification } from './fake-gateways.js';

/** One HTTP answer of a real API process, with how long it took. */
export interface Answer {
  status: number;
  body: unknown;
  ms: number;
}

/** A request to a real API process; never waits more than `timeoutMs` (a hang fails the test). */
export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const started = Date.now();
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the assertion message.
  }
  return { status: response.status, body, ms: Date.now() - started };
}

/** Registers addAuthTenant-style customer Ana (DNI 30111222) of tenant 1, sucursal 1, and logs in. */
export async function registerAndLogin(baseUrl: string): Promise<string> {
  const registered = await call(baseUrl, 'POST', '/portal/auth/register', {
    body: registerBody(),
  });
  if (registered.status !== 201) throw new Error(`register: ${JSON.stringify(registered)}`);
  const loggedIn = await call(baseUrl, 'POST', '/portal/auth/login', { body: loginBody() });
  if (loggedIn.status !== 200) throw new Error(`login: ${JSON.stringify(loggedIn)}`);
  return (loggedIn.body as { data: { access_token: string } }).data.access_token;
}

/** POST /portal/pagos/iniciar for the given debts; answers the payment id. */
export async function startPayment(
  baseUrl: string,
  token: string,
  facturas: { id: string; monto: number }[],
): Promise<number> {
  const total = facturas.reduce((sum, factura) => sum + Math.round(factura.monto * 100), 0) / 100;
  const answer = await call(baseUrl, 'POST', '/portal/pagos/iniciar', {
    headers: { authorization: `Bearer ${token}`, origin: ORIGIN },
    body: { facturas, total },
  });
  if (answer.status !== 200) throw new Error(`iniciar: ${JSON.stringify(answer)}`);
  return (answer.body as { data: { payment_id: number } }).data.payment_id;
}

/** A signed Mercado Pago notification as the gateway would POST it; send it as often as needed. */
export function mercadoPagoDelivery(query: string, mpPaymentId: string) {
  const notification = mercadoPagoNotification(query, mpPaymentId);
  return (baseUrl: string, timeoutMs?: number) =>
    call(baseUrl, 'POST', notification.url, {
      headers: notification.headers,
      body: notification.payload,
      ...(timeoutMs !== undefined && { timeoutMs }),
    });
}
