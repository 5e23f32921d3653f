/*
 * The route table: every route of the API, once. The key is the route's operationId (what the
 * OpenAPI document calls it, and what other people's generators name their functions); the
 * entry says its method, its path (`{name}` for a parameter, as the OpenAPI document writes it),
 * its door (who may call it: `DOORS` below; a public route says why it is public), and the codes
 * of its error answers (contract/error-codes.ts gives each one's status). Its parameters, query, body and answers are the schemas of
 * contract/route-schemas.ts under the same key.
 *
 * Some codes follow from the entry and are not repeated in it (errorCodesOf): any route may
 * answer INTERNAL_ERROR (a bug) and SERVICE_UNAVAILABLE (PostgreSQL away, the process
 * stopping); a POST, PUT or DELETE also INVALID_REQUEST, PAYLOAD_TOO_LARGE and
 * UNSUPPORTED_MEDIA_TYPE (the body is not JSON, too big, of another type); a door the codes of
 * its checks (the customer's: UNAUTHORIZED and RATE_LIMITED, the access token and the per-user
 * limit). What is answered before any route is chosen belongs to no entry: NOT_FOUND (no route
 * matched), the router's URI_TOO_LONG and INVALID_REQUEST (a segment over 100 characters, a
 * malformed %-escape) and Node's parser's INVALID_REQUEST, HEADERS_TOO_LARGE and
 * REQUEST_TIMEOUT (src/platform/http/refusals.ts). An answer with a code
 * its entry does not give is logged, and refused in the tests (src/platform/http/
 * undeclared-codes.ts); a code listed here that no path answers is caught by nothing but
 * reading, so an entry lists only what its handler and the hooks it passes can throw.
 *
 * Both ends read it: the server declares each route from its entry and its schemas
 * (src/platform/http/declare-route.ts), and the web client calls a route through its entry
 * (web/src/api/route-call.ts), typed from the same schemas. This file is plain data at run time
 * (a few strings per route); the schemas are imported as types only, so the web client's bundle
 * holds no TypeBox. test/platform/route-table.test.ts checks the table against the routes the
 * app registers and the OpenAPI document it serves.
 */
import type { Static, TSchema } from 'typebox';
import type { ErrorCode } from './error-codes.js';
import type { RouteSchemas } from './route-schemas.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const ANY_ROUTE = ['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'] as const;
const WITH_BODY = ['INVALID_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as const;

/**
 * The doors a route is entered by, each with the codes it adds to its routes' answers. What a
 * door checks is its definition in src/platform/doors/ (the compiler wants one for each name
 * here); an entry names its door, and the declaration attaches the door's checks to the route.
 * - `public`: no credential of the portal's; the entry says why (`why`).
 * - `customer`: a customer's access token (Authorization: Bearer), checked with the session it
 *   belongs to, and the per-user limit; a pay link's token (`alcance: "pago"`) is FORBIDDEN here.
 * - `payer`: the same, and also a pay link's token while its link lives (docs/pay-links.md): the
 *   few routes a person who may only pay needs (debts, account, start a payment, its result and
 *   receipt, a pending invoice's PDF).
 * - `staff`: a token of the ERP's administrative system (RS256, its own keys; docs/staff.md),
 *   for the tenant it names (another tenant is FORBIDDEN), with a limit per staff user; an
 *   action needs the `operador` role (FORBIDDEN for `lectura`).
 */
const DOORS = {
  public: [],
  customer: ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'],
  payer: ['UNAUTHORIZED', 'RATE_LIMITED'],
  staff: ['UNAUTHORIZED', 'FORBIDDEN', 'RATE_LIMITED'],
} as const satisfies Record<string, readonly ErrorCode[]>;

/** A door's name, as route table entries write it. */
export type DoorName = keyof typeof DOORS;

interface RouteBasics {
  readonly method: Method;
  readonly path: string;
  /** The codes of its error answers (each the envelope `{ success: false, error, code }`). */
  readonly errors: readonly ErrorCode[];
  /**
   * A code this route answers with another status than its own, where the contract says so
   * (the provider's failure on `GET /portal/transferencia` is a 502 GATEWAY_ERROR, a gateway's
   * refusal of cancelar a 422 one).
   */
  readonly statuses?: Partial<Record<ErrorCode, number>>;
}

/** A route anyone may call: why it is safe without a token is part of its entry. */
export interface PublicRouteFacts extends RouteBasics {
  readonly door: 'public';
  readonly why: string;
}

export interface GuardedRouteFacts extends RouteBasics {
  readonly door: Exclude<DoorName, 'public'>;
}

export type RouteFacts = PublicRouteFacts | GuardedRouteFacts;

type Implied<F extends RouteFacts> =
  | (typeof ANY_ROUTE)[number]
  | (F['method'] extends 'POST' | 'PUT' | 'DELETE' ? (typeof WITH_BODY)[number] : never)
  | (typeof DOORS)[F['door']][number];

/** Every code a route may answer: its entry's and those its method and door imply. */
export function errorCodesOf(route: RouteFacts): ErrorCode[] {
  // Fastify reads a DELETE's body too, when it comes with one.
  const sendsBody = route.method !== 'GET';
  return [
    ...new Set<ErrorCode>([
      ...route.errors,
      ...ANY_ROUTE,
      ...(sendsBody ? WITH_BODY : []),
      ...DOORS[route.door],
    ]),
  ];
}

/** What a route that takes an Idempotency-Key answers of it (docs/api.md "Idempotency-Key"). */
const IDEMPOTENT = ['IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED'] as const;

/** cancelar and devolver: the payment's, its state's and the gateway's refusals. */
const PAYMENT_ACTION_ERRORS = [
  'PAYMENT_NOT_FOUND',
  'INVALID_STATUS',
  'GATEWAY_ERROR',
  'VALIDATION_ERROR',
] as const;

const table = {
  checkLiveness: {
    method: 'GET',
    path: '/healthz',
    door: 'public',
    why: "a load balancer's probe: it holds no token",
    errors: [],
  },
  checkReadiness: {
    method: 'GET',
    path: '/readyz',
    door: 'public',
    why: "a load balancer's probe: it holds no token",
    errors: [],
  },

  getTenant: {
    method: 'GET',
    path: '/portal/empresas/{tenant_id}',
    door: 'public',
    why: 'the login page shows whose portal it is, before anyone logs in',
    errors: ['TENANT_NOT_FOUND', 'VALIDATION_ERROR', 'RATE_LIMITED'],
  },
  getTenantLogo: {
    method: 'GET',
    path: '/portal/empresas/{tenant_id}/logo',
    door: 'public',
    why: "the business's logo, on the same page",
    errors: ['TENANT_NOT_FOUND', 'VALIDATION_ERROR', 'RATE_LIMITED'],
  },

  register: {
    method: 'POST',
    path: '/portal/auth/register',
    door: 'public',
    why: 'a way in: nobody holds a token yet',
    errors: [
      'INVALID_INVITATION',
      'ORDCON_NOT_FOUND',
      'USER_ALREADY_EXISTS',
      'INVALID_SUCURSAL',
      'VALIDATION_ERROR',
      'RATE_LIMITED',
    ],
  },
  login: {
    method: 'POST',
    path: '/portal/auth/login',
    door: 'public',
    why: 'a way in: nobody holds a token yet',
    errors: [
      'INVALID_CREDENTIALS',
      'ACCOUNT_LOCKED',
      'INVALID_SUCURSAL',
      'VALIDATION_ERROR',
      'RATE_LIMITED',
    ],
  },
  forgotPassword: {
    method: 'POST',
    path: '/portal/auth/forgot-password',
    door: 'public',
    why: 'a way in: nobody holds a token yet',
    errors: ['INVALID_SUCURSAL', 'VALIDATION_ERROR', 'RATE_LIMITED'],
  },
  resetPassword: {
    method: 'POST',
    path: '/portal/auth/reset-password',
    door: 'public',
    why: 'a way in: the e-mailed code is the credential',
    errors: ['INVALID_CODE', 'INVALID_SUCURSAL', 'VALIDATION_ERROR', 'RATE_LIMITED'],
  },
  refreshToken: {
    method: 'POST',
    path: '/portal/auth/refresh-token',
    door: 'public',
    why: 'the refresh token (body or cookie) is the credential',
    errors: ['INVALID_REFRESH_TOKEN', 'FORBIDDEN', 'VALIDATION_ERROR', 'RATE_LIMITED'],
  },
  exchangePayLink: {
    method: 'POST',
    path: '/portal/auth/enlace',
    door: 'public',
    why: "a pay link's token is the credential, exchanged for a token that may only pay",
    errors: ['INVALID_LINK', 'RATE_LIMITED', 'VALIDATION_ERROR'],
  },
  readInvitation: {
    method: 'POST',
    path: '/portal/auth/invitacion',
    door: 'public',
    why: "an invitation's token is the credential: it says whom it invites, before they register",
    errors: ['INVALID_INVITATION', 'RATE_LIMITED', 'VALIDATION_ERROR'],
  },
  changePassword: {
    method: 'PUT',
    path: '/portal/auth/cambiar-password',
    door: 'customer',
    errors: ['INVALID_PASSWORD', 'USER_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  getSessionUser: {
    method: 'GET',
    path: '/portal/auth/me',
    door: 'customer',
    errors: ['USER_NOT_FOUND'],
  },
  logout: { method: 'POST', path: '/portal/auth/logout', door: 'customer', errors: ['FORBIDDEN'] },

  getProfile: {
    method: 'GET',
    path: '/portal/perfil',
    door: 'customer',
    errors: ['USER_NOT_FOUND'],
  },
  updateProfile: {
    method: 'PUT',
    path: '/portal/perfil',
    door: 'customer',
    errors: ['USER_NOT_FOUND', 'VALIDATION_ERROR'],
  },

  getAccountSummary: {
    method: 'GET',
    path: '/portal/mi-cuenta',
    door: 'payer',
    errors: ['USER_NOT_FOUND'],
  },
  listDebts: {
    method: 'GET',
    path: '/portal/deudas',
    door: 'payer',
    errors: ['USER_NOT_FOUND'],
  },
  getStatement: {
    method: 'GET',
    path: '/portal/estado-cuenta',
    door: 'customer',
    errors: ['USER_NOT_FOUND', 'VALIDATION_ERROR', 'PERIODO_DEMASIADO_EXTENSO'],
  },
  getStatementPdf: {
    method: 'GET',
    path: '/portal/estado-cuenta/pdf',
    door: 'customer',
    errors: ['USER_NOT_FOUND', 'VALIDATION_ERROR', 'PERIODO_DEMASIADO_EXTENSO', 'INFORMES_ERROR'],
  },
  listReceipts: {
    method: 'GET',
    path: '/portal/recibos',
    door: 'customer',
    errors: ['USER_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  getReceiptPdf: {
    method: 'GET',
    path: '/portal/recibos/{id}/pdf',
    door: 'customer',
    errors: ['RECIBO_NOT_FOUND', 'VALIDATION_ERROR', 'INFORMES_ERROR'],
  },
  listInvoices: {
    method: 'GET',
    path: '/portal/facturas',
    door: 'customer',
    errors: ['USER_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  getInvoicePdf: {
    method: 'GET',
    path: '/portal/facturas/{id}/pdf',
    door: 'payer',
    errors: [
      'FACTURA_NOT_FOUND',
      'FACTURA_NO_DISPONIBLE',
      'USER_NOT_FOUND',
      'VALIDATION_ERROR',
      'INFORMES_ERROR',
    ],
  },

  startPayment: {
    method: 'POST',
    path: '/portal/pagos/iniciar',
    door: 'payer',
    errors: [
      'INVALID_FACTURAS',
      'MONTO_MISMATCH',
      'PARTIAL_PAYMENT_NOT_ALLOWED',
      'MISSING_ORIGIN',
      'MISCONFIGURED',
      'GATEWAY_NOT_CONFIGURED',
      'RECIBO_NOT_CONFIGURED',
      'PAYMENT_ORDER_VIOLATION',
      'PAYMENT_IN_PROGRESS',
      'GATEWAY_ERROR',
      ...IDEMPOTENT,
      'USER_NOT_FOUND',
    ],
  },
  listPayments: {
    method: 'GET',
    path: '/portal/pagos/historial',
    door: 'customer',
    errors: ['VALIDATION_ERROR'],
  },
  getPayment: {
    method: 'GET',
    path: '/portal/pagos/{id}',
    door: 'payer',
    errors: ['PAYMENT_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  getPaymentResult: {
    method: 'GET',
    path: '/portal/pagos/{id}/resultado',
    door: 'public',
    why: "the return address's signed token reads one payment's status: the payer may have no session",
    errors: ['INVALID_RESULT_TOKEN', 'PAYMENT_NOT_FOUND', 'VALIDATION_ERROR', 'RATE_LIMITED'],
  },
  getPaymentReceipt: {
    method: 'GET',
    path: '/portal/pagos/{id}/recibo',
    door: 'payer',
    errors: [
      'PAYMENT_NOT_FOUND',
      'RECIBO_PENDIENTE',
      'RECIBO_NO_DISPONIBLE',
      'VALIDATION_ERROR',
      'INFORMES_ERROR',
    ],
  },
  cancelPayment: {
    method: 'POST',
    path: '/portal/pagos/cancelar',
    door: 'customer',
    errors: PAYMENT_ACTION_ERRORS,
  },
  refundPayment: {
    method: 'POST',
    path: '/portal/pagos/devolver',
    door: 'customer',
    errors: PAYMENT_ACTION_ERRORS,
  },
  receivePaymentNotification: {
    method: 'POST',
    path: '/portal/pagos/webhook',
    door: 'public',
    why: 'gateways: the URL token and the signature authenticate them',
    errors: ['INVALID_REQUEST', 'INVALID_SIGNATURE', 'UNAUTHORIZED', 'RATE_LIMITED'],
  },

  generateCoupon: {
    method: 'POST',
    path: '/portal/cupones/generar',
    door: 'customer',
    errors: ['INVALID_REQUEST', 'CUPON_NO_DISPONIBLE', 'USER_NOT_FOUND', 'CONFLICT', ...IDEMPOTENT],
  },
  listCoupons: {
    method: 'GET',
    path: '/portal/cupones/mis-cupones',
    door: 'customer',
    errors: ['INVALID_REQUEST', 'USER_NOT_FOUND'],
  },
  getCouponByBarcode: {
    method: 'GET',
    path: '/portal/cupones/{codigo_barras}',
    door: 'customer',
    errors: ['INVALID_REQUEST', 'CUPON_NOT_FOUND', 'FORBIDDEN', 'USER_NOT_FOUND'],
  },
  getCouponPdf: {
    method: 'GET',
    path: '/portal/cupones/{id}/pdf',
    door: 'customer',
    errors: [
      'INVALID_REQUEST',
      'CUPON_NOT_FOUND',
      'FORBIDDEN',
      'USER_NOT_FOUND',
      'INFORMES_SERVICE_ERROR',
    ],
  },

  createPayLink: {
    method: 'POST',
    path: '/portal/enlaces',
    door: 'customer',
    errors: ['CONFLICT', 'VALIDATION_ERROR'],
  },
  listPayLinks: { method: 'GET', path: '/portal/enlaces', door: 'customer', errors: [] },
  revokePayLink: {
    method: 'DELETE',
    path: '/portal/enlaces/{id}',
    door: 'customer',
    errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
  },

  getUnsubscribePage: {
    method: 'GET',
    path: '/portal/avisos/baja',
    door: 'public',
    why: "a reminder's unsubscribe link: its signed token is the credential; it shows a page, changes nothing",
    errors: ['INVALID_REQUEST', 'VALIDATION_ERROR', 'RATE_LIMITED', 'USER_NOT_FOUND'],
  },
  unsubscribeFromReminders: {
    method: 'POST',
    path: '/portal/avisos/baja',
    door: 'public',
    why: 'RFC 8058 one-click from a mail client, which holds no session: the signed token authenticates it',
    errors: ['INVALID_REQUEST', 'VALIDATION_ERROR', 'RATE_LIMITED', 'USER_NOT_FOUND'],
  },

  getPrintCertificate: {
    method: 'GET',
    path: '/qz/certificate',
    door: 'public',
    why: 'holds no secret; QZ Tray caches it',
    errors: ['PRINT_AGENT_NOT_CONFIGURED'],
  },
  signPrintRequest: {
    method: 'POST',
    path: '/qz/sign',
    door: 'customer',
    errors: ['VALIDATION_ERROR', 'PRINT_AGENT_NOT_CONFIGURED'],
  },
  listPrintConfigs: {
    method: 'GET',
    path: '/qz/print-config',
    door: 'customer',
    errors: ['VALIDATION_ERROR'],
  },
  createPrintConfig: {
    method: 'POST',
    path: '/qz/print-config',
    door: 'customer',
    errors: ['USER_NOT_FOUND', 'CONFLICT', 'VALIDATION_ERROR'],
  },
  getPrintConfig: {
    method: 'GET',
    path: '/qz/print-config/{id}',
    door: 'customer',
    errors: ['PRINT_CONFIG_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  updatePrintConfig: {
    method: 'PUT',
    path: '/qz/print-config/{id}',
    door: 'customer',
    errors: ['PRINT_CONFIG_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  deletePrintConfig: {
    method: 'DELETE',
    path: '/qz/print-config/{id}',
    door: 'customer',
    errors: ['PRINT_CONFIG_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  getStaffSummary: {
    method: 'GET',
    path: '/portal/comercio/resumen',
    door: 'staff',
    errors: ['VALIDATION_ERROR'],
  },
  listStaffPayments: {
    method: 'GET',
    path: '/portal/comercio/pagos',
    door: 'staff',
    errors: ['VALIDATION_ERROR', 'INVALID_SUCURSAL'],
  },
  exportStaffPayments: {
    method: 'GET',
    path: '/portal/comercio/pagos.csv',
    door: 'staff',
    errors: ['VALIDATION_ERROR', 'INVALID_SUCURSAL'],
  },
  getStaffPayment: {
    method: 'GET',
    path: '/portal/comercio/pagos/{id}',
    door: 'staff',
    errors: ['PAYMENT_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  listStaffAttention: {
    method: 'GET',
    path: '/portal/comercio/atencion',
    door: 'staff',
    errors: ['VALIDATION_ERROR'],
  },
  listStaffClients: {
    method: 'GET',
    path: '/portal/comercio/clientes',
    door: 'staff',
    errors: ['VALIDATION_ERROR', 'INVALID_SUCURSAL'],
  },
  listStaffAudit: {
    method: 'GET',
    path: '/portal/comercio/auditoria',
    door: 'staff',
    errors: ['VALIDATION_ERROR'],
  },
  retryStaffReceipt: {
    method: 'POST',
    path: '/portal/comercio/pagos/{id}/reintentar-recibo',
    door: 'staff',
    errors: ['PAYMENT_NOT_FOUND', 'INVALID_STATUS', 'VALIDATION_ERROR'],
  },
  refundStaffPayment: {
    method: 'POST',
    path: '/portal/comercio/pagos/{id}/devolver',
    door: 'staff',
    errors: PAYMENT_ACTION_ERRORS,
  },
  unlockStaffClient: {
    method: 'POST',
    path: '/portal/comercio/clientes/{portal_user_id}/desbloquear',
    door: 'staff',
    errors: ['USER_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  endStaffClientSessions: {
    method: 'POST',
    path: '/portal/comercio/clientes/{portal_user_id}/cerrar-sesiones',
    door: 'staff',
    errors: ['USER_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  setStaffClientAccess: {
    method: 'POST',
    path: '/portal/comercio/clientes/{portal_user_id}/acceso',
    door: 'staff',
    errors: ['USER_NOT_FOUND', 'VALIDATION_ERROR'],
  },
  createStaffPayLink: {
    method: 'POST',
    path: '/portal/comercio/clientes/{portal_user_id}/enlace',
    door: 'staff',
    errors: ['USER_NOT_FOUND', 'CONFLICT', 'VALIDATION_ERROR'],
  },
  inviteStaffClient: {
    method: 'POST',
    path: '/portal/comercio/clientes/invitar',
    door: 'staff',
    errors: ['ORDCON_NOT_FOUND', 'USER_ALREADY_EXISTS', 'INVALID_SUCURSAL', 'VALIDATION_ERROR'],
  },
  inviteStaffClientsCsv: {
    method: 'POST',
    path: '/portal/comercio/clientes/invitar.csv',
    door: 'staff',
    errors: ['VALIDATION_ERROR'],
  },
  listStaffInvitations: {
    method: 'GET',
    path: '/portal/comercio/invitaciones',
    door: 'staff',
    errors: ['VALIDATION_ERROR'],
  },
  assignStaffTransfer: {
    method: 'POST',
    path: '/portal/comercio/transferencias/{id}/asignar',
    door: 'staff',
    errors: [
      'NOT_FOUND',
      'ORDCON_NOT_FOUND',
      'INVALID_SUCURSAL',
      'INVALID_STATUS',
      'VALIDATION_ERROR',
    ],
  },

  getTransferAccount: {
    method: 'GET',
    path: '/portal/transferencia',
    door: 'payer',
    errors: ['TRANSFERENCIAS_NO_CONFIGURADAS', 'GATEWAY_ERROR', 'USER_NOT_FOUND'],
    statuses: { GATEWAY_ERROR: 502 },
  },
  receiveTransferNotification: {
    method: 'POST',
    path: '/portal/transferencias/{proveedor}/{tenant_id}/{aviso}',
    door: 'public',
    why: 'transfer providers: the header token the portal registered authenticates them',
    errors: ['INVALID_REQUEST', 'UNAUTHORIZED', 'RATE_LIMITED'],
  },
} as const satisfies { readonly [K in keyof RouteSchemas]: RouteFacts };

type Table = typeof table;
/** A route's name: its operationId. */
export type RouteKey = keyof Table;

/** Carries the route's key in its type only, so a call is typed from its entry alone. */
declare const operation: unique symbol;
export type Route<K extends RouteKey = RouteKey> = Table[K] & { readonly [operation]?: K };

export const routes: { readonly [K in RouteKey]: Route<K> } = table;

/** The keys of the routes whose facts match `F` (`{ door: 'customer' }`, say). */
export type RouteKeyWhere<F> = { [K in RouteKey]: Table[K] extends F ? K : never }[RouteKey];

/** The codes route K may answer (errorCodesOf, as a type). */
export type ErrorCodeOf<K extends RouteKey> = Table[K]['errors'][number] | Implied<Table[K]>;

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
