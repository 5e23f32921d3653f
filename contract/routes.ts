/*
 * The route table: every route of the API, once. The key is the route's operationId (what the
 * OpenAPI document calls it, and what other people's generators name their functions); the
 * entry says its method, its path (`{name}` for a parameter, as the OpenAPI document writes it),
 * whether it takes the access token, and the statuses of its error answers. Its parameters,
 * query, body and answers are the schemas of contract/route-schemas.ts under the same key.
 *
 * Both ends read it: the server declares each route from its entry and its schemas
 * (src/platform/http/declare-route.ts), and the web client calls a route through its entry
 * (web/src/api/route-call.ts), typed from the same schemas. This file is plain data at run time
 * (a few strings per route); the schemas are imported as types only, so the web client's bundle
 * holds no TypeBox. test/platform/route-table.test.ts checks the table against the routes the
 * app registers and the OpenAPI document it serves.
 */
import type { Static, TSchema } from 'typebox';
import type { RouteSchemas } from './route-schemas.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteFacts {
  readonly method: Method;
  readonly path: string;
  /** `bearer`: declared in the protected scope, which checks the access token; `public`: none. */
  readonly auth: 'bearer' | 'public';
  /** The statuses of its error answers (each the envelope `{ success: false, error, code }`). */
  readonly errors: readonly number[];
}

const table = {
  checkLiveness: { method: 'GET', path: '/healthz', auth: 'public', errors: [] },
  checkReadiness: { method: 'GET', path: '/readyz', auth: 'public', errors: [] },

  getTenant: {
    method: 'GET',
    path: '/portal/empresas/{tenant_id}',
    auth: 'public',
    errors: [404, 422, 429, 503],
  },
  getTenantLogo: {
    method: 'GET',
    path: '/portal/empresas/{tenant_id}/logo',
    auth: 'public',
    errors: [404, 422, 429, 503],
  },

  register: {
    method: 'POST',
    path: '/portal/auth/register',
    auth: 'public',
    errors: [404, 409, 422, 429],
  },
  login: {
    method: 'POST',
    path: '/portal/auth/login',
    auth: 'public',
    errors: [401, 403, 422, 429],
  },
  forgotPassword: {
    method: 'POST',
    path: '/portal/auth/forgot-password',
    auth: 'public',
    errors: [422, 429],
  },
  resetPassword: {
    method: 'POST',
    path: '/portal/auth/reset-password',
    auth: 'public',
    errors: [400, 422, 429],
  },
  refreshToken: {
    method: 'POST',
    path: '/portal/auth/refresh-token',
    auth: 'public',
    errors: [401, 403],
  },
  changePassword: {
    method: 'PUT',
    path: '/portal/auth/cambiar-password',
    auth: 'bearer',
    errors: [401, 404, 422, 429],
  },
  getSessionUser: {
    method: 'GET',
    path: '/portal/auth/me',
    auth: 'bearer',
    errors: [401, 404, 429],
  },
  logout: { method: 'POST', path: '/portal/auth/logout', auth: 'bearer', errors: [401, 403, 429] },

  getProfile: { method: 'GET', path: '/portal/perfil', auth: 'bearer', errors: [401, 404, 429] },
  updateProfile: {
    method: 'PUT',
    path: '/portal/perfil',
    auth: 'bearer',
    errors: [401, 404, 422, 429],
  },

  getAccountSummary: {
    method: 'GET',
    path: '/portal/mi-cuenta',
    auth: 'bearer',
    errors: [401, 404, 429],
  },
  listDebts: { method: 'GET', path: '/portal/deudas', auth: 'bearer', errors: [401, 404, 429] },
  getStatement: {
    method: 'GET',
    path: '/portal/estado-cuenta',
    auth: 'bearer',
    errors: [401, 404, 422, 429],
  },
  getStatementPdf: {
    method: 'GET',
    path: '/portal/estado-cuenta/pdf',
    auth: 'bearer',
    errors: [401, 404, 422, 429, 502, 503],
  },
  listReceipts: {
    method: 'GET',
    path: '/portal/recibos',
    auth: 'bearer',
    errors: [401, 404, 422, 429],
  },
  getReceiptPdf: {
    method: 'GET',
    path: '/portal/recibos/{id}/pdf',
    auth: 'bearer',
    errors: [401, 404, 429, 502],
  },
  listInvoices: {
    method: 'GET',
    path: '/portal/facturas',
    auth: 'bearer',
    errors: [401, 404, 422, 429],
  },
  getInvoicePdf: {
    method: 'GET',
    path: '/portal/facturas/{id}/pdf',
    auth: 'bearer',
    errors: [401, 404, 422, 429, 502, 503],
  },

  startPayment: {
    method: 'POST',
    path: '/portal/pagos/iniciar',
    auth: 'bearer',
    errors: [400, 401, 409, 422, 429, 500],
  },
  listPayments: {
    method: 'GET',
    path: '/portal/pagos/historial',
    auth: 'bearer',
    errors: [401, 422, 429],
  },
  getPayment: {
    method: 'GET',
    path: '/portal/pagos/{id}',
    auth: 'bearer',
    errors: [401, 404, 422, 429],
  },
  getPaymentResult: {
    method: 'GET',
    path: '/portal/pagos/{id}/resultado',
    auth: 'public',
    errors: [401, 404, 422, 429],
  },
  getPaymentReceipt: {
    method: 'GET',
    path: '/portal/pagos/{id}/recibo',
    auth: 'bearer',
    errors: [401, 404, 409, 422, 429, 502],
  },
  cancelPayment: {
    method: 'POST',
    path: '/portal/pagos/cancelar',
    auth: 'bearer',
    errors: [401, 404, 409, 422, 429],
  },
  refundPayment: {
    method: 'POST',
    path: '/portal/pagos/devolver',
    auth: 'bearer',
    errors: [401, 404, 409, 422, 429],
  },
  receivePaymentNotification: {
    method: 'POST',
    path: '/portal/pagos/webhook',
    auth: 'public',
    errors: [400, 401, 503],
  },

  generateCoupon: {
    method: 'POST',
    path: '/portal/cupones/generar',
    auth: 'bearer',
    errors: [400, 401, 404, 409, 422, 429, 500],
  },
  listCoupons: {
    method: 'GET',
    path: '/portal/cupones/mis-cupones',
    auth: 'bearer',
    errors: [400, 401, 404, 429, 500],
  },
  getCouponByBarcode: {
    method: 'GET',
    path: '/portal/cupones/{codigo_barras}',
    auth: 'bearer',
    errors: [400, 401, 403, 404, 429, 500],
  },
  getCouponPdf: {
    method: 'GET',
    path: '/portal/cupones/{id}/pdf',
    auth: 'bearer',
    errors: [400, 401, 403, 404, 429, 502],
  },

  getUnsubscribePage: {
    method: 'GET',
    path: '/portal/avisos/baja',
    auth: 'public',
    errors: [400, 404, 422, 429],
  },
  unsubscribeFromReminders: {
    method: 'POST',
    path: '/portal/avisos/baja',
    auth: 'public',
    errors: [400, 404, 415, 422, 429],
  },

  getPrintCertificate: { method: 'GET', path: '/qz/certificate', auth: 'public', errors: [503] },
  signPrintRequest: {
    method: 'POST',
    path: '/qz/sign',
    auth: 'bearer',
    errors: [400, 401, 413, 415, 422, 429, 503],
  },
  listPrintConfigs: {
    method: 'GET',
    path: '/qz/print-config',
    auth: 'bearer',
    errors: [401, 422, 429],
  },
  createPrintConfig: {
    method: 'POST',
    path: '/qz/print-config',
    auth: 'bearer',
    errors: [401, 404, 409, 422, 429],
  },
  getPrintConfig: {
    method: 'GET',
    path: '/qz/print-config/{id}',
    auth: 'bearer',
    errors: [401, 404, 422, 429],
  },
  updatePrintConfig: {
    method: 'PUT',
    path: '/qz/print-config/{id}',
    auth: 'bearer',
    errors: [401, 404, 422, 429],
  },
  deletePrintConfig: {
    method: 'DELETE',
    path: '/qz/print-config/{id}',
    auth: 'bearer',
    errors: [401, 404, 422, 429],
  },
} as const satisfies { readonly [K in keyof RouteSchemas]: RouteFacts };

type Table = typeof table;
/** A route's name: its operationId. */
export type RouteKey = keyof Table;

/** Carries the route's key in its type only, so a call is typed from its entry alone. */
declare const operation: unique symbol;
export type Route<K extends RouteKey = RouteKey> = Table[K] & { readonly [operation]?: K };

export const routes: { readonly [K in RouteKey]: Route<K> } = table;

/** The keys of the routes whose facts match `F` (`{ auth: 'bearer' }`, say). */
export type RouteKeyWhere<F> = { [K in RouteKey]: Table[K] extends F ? K : never }[RouteKey];

/** A schema's value, or `undefined` when the route has no such part. */
type Part<K extends RouteKey, P extends string> = RouteSchemas[K] extends {
  [Q in P]: infer S extends TSchema;
}
  ? Static<S>
  : undefined;

export type ParamsOf<K extends RouteKey> = Part<K, 'params'>;
export type QueryOf<K extends RouteKey> = Part<K, 'querystring'>;
export type BodyOf<K extends RouteKey> = Part<K, 'body'>;

type Responses<K extends RouteKey> = RouteSchemas[K]['response'];
/** The body of a success answer: JSON (a TypeBox schema), else unknown (bytes, text, nothing). */
export type AnswerOf<K extends RouteKey> = {
  [S in keyof Responses<K>]: Responses<K>[S] extends { '~kind': string } & TSchema
    ? Static<Responses<K>[S]>
    : unknown;
}[keyof Responses<K>];
/** The `data` of a route that answers the envelope `{ success: true, data }`. */
export type DataOf<K extends RouteKey> =
  AnswerOf<K> extends { success: true; data: infer D } ? D : never;

/** `'/a/{x}/b/{y}'` -> `'x' | 'y'`. */
type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParams<Rest>
  : never;
type ParamNames<K extends RouteKey> = ParamsOf<K> extends object ? keyof ParamsOf<K> : never;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Disagreeing = {
  [K in RouteKey]: Same<PathParams<Table[K]['path']>, ParamNames<K>> extends true ? never : K;
}[RouteKey];
type Expect<T extends true> = T;
/**
 * Compile time: each `{name}` of a path is a field of its params schema, and the other way
 * round. A route that breaks it is named in the error here.
 */
export type PathParamsAgree = Expect<[Disagreeing] extends [never] ? true : Disagreeing>;
