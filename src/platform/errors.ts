/**
 * The one error type services throw. `code` is a stable code from docs/api.md's error table
 * (or docs/decisions.md); the error handler turns it into `{ success: false, error, code }`.
 */
const STATUS_BY_CODE = {
  INVALID_REQUEST: 400,
  INVALID_CODE: 400,
  INVALID_FACTURAS: 400,
  MONTO_MISMATCH: 400,
  PARTIAL_PAYMENT_NOT_ALLOWED: 400,
  MISSING_ORIGIN: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  INVALID_REFRESH_TOKEN: 401,
  INVALID_RESULT_TOKEN: 401,
  INVALID_PASSWORD: 401,
  INVALID_SIGNATURE: 401,
  FORBIDDEN: 403,
  ACCOUNT_LOCKED: 403,
  NOT_FOUND: 404,
  ORDCON_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  PAYMENT_NOT_FOUND: 404,
  CUPON_NOT_FOUND: 404,
  RECIBO_NOT_FOUND: 404,
  FACTURA_NOT_FOUND: 404,
  PRINT_CONFIG_NOT_FOUND: 404,
  TENANT_NOT_FOUND: 404,
  USER_ALREADY_EXISTS: 409,
  CONFLICT: 409,
  INVALID_STATUS: 409,
  RECIBO_PENDIENTE: 409,
  PAYMENT_IN_PROGRESS: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_ERROR: 422,
  INVALID_SUCURSAL: 422,
  GATEWAY_NOT_CONFIGURED: 422,
  RECIBO_NOT_CONFIGURED: 422,
  PAYMENT_ORDER_VIOLATION: 422,
  GATEWAY_ERROR: 422,
  RECIBO_NO_DISPONIBLE: 422,
  CUPON_NO_DISPONIBLE: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  PERIODO_DEMASIADO_EXTENSO: 422,
  FACTURA_NO_DISPONIBLE: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  MISCONFIGURED: 500,
  INFORMES_ERROR: 502,
  INFORMES_SERVICE_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  PRINT_AGENT_NOT_CONFIGURED: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof STATUS_BY_CODE;

export class AppError extends Error {
  readonly status: number;
  /** Extra response headers, e.g. Retry-After on ACCOUNT_LOCKED or RATE_LIMITED. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = STATUS_BY_CODE[code];
    this.headers = options.headers ?? {};
  }
}

export function statusOf(code: ErrorCode): number {
  return STATUS_BY_CODE[code];
}

/** Keeps services flat: `assertThat(user, 'USER_NOT_FOUND', 'No such user')`. */
export function assertThat(
  condition: unknown,
  code: ErrorCode,
  message: string,
): asserts condition {
  if (!condition) throw new AppError(code, message);
}
