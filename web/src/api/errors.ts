/**
 * A Spanish (es-AR) message for every error code of the API (contract/error-codes.ts) and the two
 * the client makes itself: a code added to the contract without a message here fails the
 * typecheck. Pure, tested in test/web/unit/errors.test.ts.
 */
import type { ErrorCode } from '../../../contract/error-codes.js';
import { withFullStop } from '../lib/format.js';

/** Codes the client gives a failure that brought no envelope. */
export type ClientCode = 'NETWORK_ERROR' | 'BAD_RESPONSE';
/** Every code an ApiError carries. */
export type KnownCode = ErrorCode | ClientCode;

export interface ErrorContext {
  /** HTTP status of the answer (0 when the network failed). */
  status: number;
  /** The `code` of the error envelope, or a client-side code (NETWORK_ERROR, BAD_RESPONSE). */
  code: string;
  /** The API's own message (`error` of the envelope), used where it carries detail. */
  serverMessage?: string;
  /** `Retry-After` in seconds, when the answer had one. */
  retryAfterSeconds?: number | null;
}

/** The words of PAYMENT_IN_PROGRESS's message naming the payments page. */
const PAYMENTS_PAGE_WORDS = 'tus pagos';

const MESSAGES = {
  // Authentication
  INVALID_CREDENTIALS: 'El documento o la contraseña no son correctos.',
  INVALID_REFRESH_TOKEN: 'Tu sesión terminó. Ingresá de nuevo.',
  UNAUTHORIZED: 'Tu sesión terminó. Ingresá de nuevo.',
  INVALID_PASSWORD: 'La contraseña actual no es correcta.',
  INVALID_CODE: 'El código no es correcto o venció. Pedí uno nuevo si hace falta.',
  ORDCON_NOT_FOUND:
    'No encontramos un cliente con ese documento en esta sucursal. Revisalo o consultá a la empresa.',
  USER_ALREADY_EXISTS: 'Ya existe una cuenta para ese cliente. Ingresá o recuperá tu contraseña.',
  USER_NOT_FOUND: 'No encontramos tu cuenta. Ingresá de nuevo.',
  INVALID_SUCURSAL: 'La sucursal elegida no pertenece a esta empresa.',
  ACCOUNT_LOCKED: 'Tu cuenta quedó bloqueada por varios intentos fallidos.',
  FORBIDDEN: 'No tenés permiso para ver esto.',
  TENANT_NOT_FOUND: 'No encontramos esta empresa, o su portal no está activo. Revisá el enlace.',
  // Payments
  INVALID_FACTURAS:
    'Alguna de las facturas elegidas ya no está pendiente o cambió su importe. Actualizá la lista.',
  MONTO_MISMATCH: 'El total no coincide con las facturas elegidas. Actualizá la lista.',
  PARTIAL_PAYMENT_NOT_ALLOWED: 'Las facturas se pagan por su importe completo.',
  PAYMENT_ORDER_VIOLATION:
    'Las facturas se pagan de la más antigua a la más nueva. Actualizá la lista y elegí de nuevo.',
  PAYMENT_IN_PROGRESS: `Ya hay un pago en curso para alguna de esas facturas. Esperá a que termine o cancelalo desde ${PAYMENTS_PAGE_WORDS}.`,
  MISSING_ORIGIN: 'Esta página no está autorizada para iniciar pagos. Avisale a la empresa.',
  MISCONFIGURED: 'Los pagos en línea no están disponibles por un problema de configuración.',
  GATEWAY_NOT_CONFIGURED: 'La empresa todavía no tiene habilitados los pagos en línea.',
  RECIBO_NOT_CONFIGURED: 'La empresa todavía no tiene habilitados los pagos en línea.',
  GATEWAY_ERROR: 'La plataforma de pago no respondió. Probá de nuevo en unos minutos.',
  PAYMENT_NOT_FOUND: 'No encontramos ese pago.',
  INVALID_LINK:
    'Este enlace de pago ya no sirve: venció o fue revocado. Ingresá con tu contraseña o pedí un enlace nuevo.',
  INVALID_INVITATION:
    'Esta invitación ya no sirve: venció, ya se usó o fue reemplazada. Registrate con tu documento o pedí una nueva.',
  INVALID_RESULT_TOKEN:
    'El enlace de este pago venció o no es válido. Ingresá a tu cuenta para ver cómo terminó.',
  INVALID_STATUS: 'El pago cambió de estado y ya no admite esta operación. Actualizá la página.',
  RECIBO_PENDIENTE: 'El recibo todavía se está generando. Probá de nuevo en unos segundos.',
  RECIBO_NO_DISPONIBLE: 'Este pago no tiene recibo disponible.',
  INFORMES_ERROR: 'No pudimos generar el PDF en este momento. Probá de nuevo en unos minutos.',
  IDEMPOTENCY_IN_PROGRESS:
    'Tu pedido anterior todavía se está procesando. Esperá unos segundos y probá de nuevo.',
  IDEMPOTENCY_KEY_REUSED: 'Tu pedido cambió mientras se enviaba. Probá de nuevo.',
  // Receipts and invoices
  RECIBO_NOT_FOUND: 'No encontramos ese recibo.',
  FACTURA_NOT_FOUND: 'No encontramos ese comprobante.',
  // The API says which of its two reasons (no CAE yet, no fiscal data of the business).
  FACTURA_NO_DISPONIBLE: 'El PDF de este comprobante todavía no está disponible.',
  // Statement of account
  PERIODO_DEMASIADO_EXTENSO:
    'El período elegido tiene demasiados movimientos para mostrarlos juntos. Elegí un período más corto.',
  // Bank transfers
  TRANSFERENCIAS_NO_CONFIGURADAS: 'Esta empresa todavía no recibe transferencias por el portal.',
  // Coupons
  CUPON_NOT_FOUND: 'No encontramos ese cupón.',
  CUPON_NO_DISPONIBLE: 'Ese cupón no está disponible.',
  INVALID_REQUEST: 'Los datos enviados no son válidos. Revisalos y probá de nuevo.',
  INFORMES_SERVICE_ERROR:
    'No pudimos generar el PDF en este momento. Probá de nuevo en unos minutos.',
  // Printing
  PRINT_CONFIG_NOT_FOUND: 'No encontramos esa configuración de impresión.',
  PRINT_AGENT_NOT_CONFIGURED: 'La impresión local no está habilitada en este portal.',
  // Generic
  VALIDATION_ERROR: 'Revisá los datos ingresados.',
  RATE_LIMITED: 'Hiciste demasiados intentos seguidos.',
  INVALID_SIGNATURE: 'El pedido no tiene una firma válida.',
  NOT_FOUND: 'No encontramos lo que buscabas.',
  CONFLICT: 'La operación choca con otra en curso. Actualizá la página.',
  PAYLOAD_TOO_LARGE: 'Los datos enviados son demasiado grandes.',
  UNSUPPORTED_MEDIA_TYPE: 'El pedido no tiene un formato válido.',
  // Refused before any route: the client never builds such a request, so they say little.
  URI_TOO_LONG: 'La dirección pedida no es válida.',
  HEADERS_TOO_LARGE: 'El pedido es demasiado grande.',
  REQUEST_TIMEOUT: 'El pedido tardó demasiado en llegar. Probá de nuevo.',
  INTERNAL_ERROR: 'Ocurrió un error inesperado. Probá de nuevo en unos minutos.',
  SERVICE_UNAVAILABLE: 'El servicio no está disponible en este momento. Probá en unos minutos.',
  NETWORK_ERROR: 'No pudimos conectarnos. Revisá tu conexión a internet y probá de nuevo.',
  BAD_RESPONSE: 'El servidor respondió algo inesperado. Probá de nuevo en unos minutos.',
} satisfies Record<KnownCode, string>;

/** Whether the API's `code` is one this client knows (a newer API may add codes). */
export function isKnownCode(code: string): code is KnownCode {
  return Object.hasOwn(MESSAGES, code);
}

/** "1 minuto", "15 minutos"; at least 1. */
export function minutesText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `${minutes} ${minutes === 1 ? 'minuto' : 'minutos'}`;
}

function waitText(seconds: number): string {
  if (seconds < 60) {
    const s = Math.max(1, Math.ceil(seconds));
    return `${s} ${s === 1 ? 'segundo' : 'segundos'}`;
  }
  return minutesText(seconds);
}

/** `Retry-After` is seconds or an HTTP date; anything else is null. */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.round((date - now) / 1000));
}

/** `payment_id 123` in PAYMENT_IN_PROGRESS's message (docs/decisions.md #26), if any. */
export function paymentIdInMessage(message: string | undefined): number | null {
  const match = /payment_id\D{0,3}(\d+)/i.exec(message ?? '');
  return match ? Number(match[1]) : null;
}

export function errorMessage(context: ErrorContext): string {
  const { code, retryAfterSeconds } = context;
  if (code === 'ACCOUNT_LOCKED') {
    const wait = retryAfterSeconds ?? 15 * 60;
    return `${MESSAGES.ACCOUNT_LOCKED} Probá de nuevo en ${minutesText(wait)} o recuperá tu contraseña.`;
  }
  if (code === 'RATE_LIMITED') {
    return retryAfterSeconds != null
      ? `${MESSAGES.RATE_LIMITED} Esperá ${waitText(retryAfterSeconds)} y probá de nuevo.`
      : `${MESSAGES.RATE_LIMITED} Esperá un momento y probá de nuevo.`;
  }
  if (code === 'PAYMENT_IN_PROGRESS') {
    const id = paymentIdInMessage(context.serverMessage);
    const base = MESSAGES.PAYMENT_IN_PROGRESS;
    return id === null ? base : `${base} (pago n.º ${id})`;
  }
  if (code === 'VALIDATION_ERROR') {
    const detail = context.serverMessage?.trim();
    return detail ? `Revisá los datos: ${detail}` : MESSAGES.VALIDATION_ERROR;
  }
  if (code === 'FACTURA_NO_DISPONIBLE' && context.serverMessage?.trim())
    return withFullStop(context.serverMessage);
  if (isKnownCode(code)) return MESSAGES[code];
  if (context.status >= 500) return MESSAGES.INTERNAL_ERROR;
  return context.serverMessage?.trim() || 'Ocurrió un error. Probá de nuevo.';
}
