/*
 * A compile-time proof, checked by `npm run check` (`tsc -p web`): the web client's calls are
 * typed from the route table (contract/routes.ts), so a request field, a path parameter, a query
 * field or an answer field the contract does not have fails the web's typecheck, and so does a
 * route called through the wrong door. Each `@ts-expect-error` below must meet an error, or tsc
 * fails on the unused directive. Never run, never bundled (nothing imports it).
 */
import { routes } from '../../../contract/routes.js';
import { authBlob, authCall, publicCall } from '../session/session.js';
import { failedWith } from '../api/route-call.js';

export async function theRightCallsCompile(): Promise<string> {
  await authCall(routes.startPayment, { body: { facturas: [{ id: 'a', monto: 1 }], total: 1 } });
  await authCall(routes.listPayments, { query: { limit: 10 } });
  await authBlob(routes.getReceiptPdf, { params: { id: 'a' } });
  await publicCall(routes.getTenant, { params: { tenant_id: 1 } });
  const payment = await authCall(routes.getPayment, { params: { id: 1 } });
  return payment.estado;
}

export async function aWrongRequestFieldFails(): Promise<void> {
  // @ts-expect-error StartBody's field is `facturas`: renaming it on either side fails here.
  await authCall(routes.startPayment, { body: { factura: [{ id: 'a', monto: 1 }], total: 1 } });
  // @ts-expect-error iniciar takes a body.
  await authCall(routes.startPayment);
  // @ts-expect-error the path parameter is `{id}`.
  await authCall(routes.getPayment, { params: { payment_id: 1 } });
  // @ts-expect-error historial's query has `limit` and `offset`.
  await authCall(routes.listPayments, { query: { limite: 10 } });
  // @ts-expect-error mi-cuenta takes no body.
  await authCall(routes.getAccountSummary, { body: {} });
}

export async function aWrongAnswerFieldFails(): Promise<unknown> {
  const payment = await authCall(routes.getPayment, { params: { id: 1 } });
  // @ts-expect-error a payment's state is `estado`.
  return payment.status;
}

export async function aRouteThroughTheWrongDoorFails(): Promise<void> {
  // @ts-expect-error login is public: it takes no access token.
  await authCall(routes.login, {
    body: { identifier: '1', identifier_type: 'dni', password: 'x' },
  });
  // @ts-expect-error mi-cuenta takes the access token.
  await publicCall(routes.getAccountSummary);
}

export function aCodeTheRouteDoesNotAnswerFails(error: unknown): boolean {
  return (
    failedWith(error, routes.login, 'INVALID_CREDENTIALS') &&
    // @ts-expect-error login never answers CUPON_NOT_FOUND (contract/routes.ts).
    failedWith(error, routes.login, 'CUPON_NOT_FOUND') &&
    // @ts-expect-error no route answers a code that is not in contract/error-codes.ts.
    failedWith(error, routes.startPayment, 'PAYMENT_REJECTED')
  );
}
