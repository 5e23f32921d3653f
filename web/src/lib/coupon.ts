/**
 * The coupons page's logic: amounts typed the Argentine way, each checked as the API checks it
 * (docs/api.md generar; docs/decisions.md #36: > 0 and <= the debt's balance, exact to the cent, total =
 * sum; neither FIFO nor full amounts), days until due (docs/coupons.md: 1..365, default 30), the
 * 19 digits grouped for reading, and the list's query. Pure, tested in
 * test/web/unit/coupon.test.ts.
 */
import { formatCents, fromCents, toCents, withFullStop } from './format.js';
import type { BodyOf, QueryOf } from '../../../contract/routes.js';
import type { KnownCode } from '../api/errors.js';
import { pagedQuery } from './paging.js';

export const DEFAULT_EXPIRY_DAYS = 30;
export const MIN_EXPIRY_DAYS = 1;
export const MAX_EXPIRY_DAYS = 365;
export const PAGE_SIZE = 20;

export type AmountResult = { cents: number } | { error: string };

/**
 * `1.250,50`, `1250,5`, `1250.50`, `$ 1.250` -> cents. A comma is the decimal mark and dots then
 * group thousands; without a comma, dots in thousands groups (`1.250`) group thousands, and a
 * single dot followed by one or two digits (`1250.5`) is the decimal mark.
 */
export function parseAmount(text: string): AmountResult {
  const raw = text.replace(/\$/g, '').replace(/\s/g, '');
  if (raw === '') return { error: 'Ingresá el importe.' };
  let integer: string;
  let decimals: string;
  if (raw.includes(',')) {
    const match = /^(\d{1,3}(?:\.\d{3})+|\d+),(\d*)$/.exec(raw);
    if (!match) return { error: 'Escribí el importe con números, por ejemplo 1.250,50.' };
    integer = (match[1] ?? '').replace(/\./g, '');
    decimals = match[2] ?? '';
  } else if (/^\d{1,3}(?:\.\d{3})+$/.test(raw)) {
    integer = raw.replace(/\./g, '');
    decimals = '';
  } else {
    const match = /^(\d+)(?:\.(\d*))?$/.exec(raw);
    if (!match) return { error: 'Escribí el importe con números, por ejemplo 1.250,50.' };
    integer = match[1] ?? '';
    decimals = match[2] ?? '';
  }
  if (decimals.length > 2) return { error: 'El importe lleva como mucho 2 decimales.' };
  if (integer.length > 13) return { error: 'El importe es demasiado grande.' };
  return { cents: Number(integer) * 100 + Number(decimals.padEnd(2, '0')) };
}

/** An amount to pay of one debt: > 0 and at most its balance (`balance` in the API's decimals). */
export function amountError(text: string, balance: number): string | null {
  const parsed = parseAmount(text);
  if ('error' in parsed) return parsed.error;
  if (parsed.cents <= 0) return 'El importe tiene que ser mayor que cero.';
  const max = toCents(balance);
  if (parsed.cents > max) return `No puede superar el saldo de la factura, ${formatCents(max)}.`;
  return null;
}

/** The amount field's starting text: the whole balance, `1.250,50` (without the `$`). */
export function amountText(balance: number): string {
  return formatCents(toCents(balance)).replace(/^\$ /, '');
}

export function expiryDaysError(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return 'Ingresá en cuántos días vence el cupón.';
  if (
    !/^\d{1,3}$/.test(trimmed) ||
    Number(trimmed) < MIN_EXPIRY_DAYS ||
    Number(trimmed) > MAX_EXPIRY_DAYS
  )
    return `Elegí un número entero de días entre ${MIN_EXPIRY_DAYS} y ${MAX_EXPIRY_DAYS}.`;
  return null;
}

export interface CouponDebt {
  id: string;
  comprobante: string;
  nrocomp: string;
  debe: number;
}

export interface CouponLine {
  debt: CouponDebt;
  /** The amount as typed. */
  text: string;
}

/** Sum of the lines whose amount is valid, in cents (for the running total). */
export function linesTotalCents(lines: readonly CouponLine[]): number {
  let cents = 0;
  for (const line of lines) {
    const parsed = parseAmount(line.text);
    if ('cents' in parsed && amountError(line.text, line.debt.debe) === null) cents += parsed.cents;
  }
  return cents;
}

/** The body of POST /portal/cupones/generar, as the route table types it. */
export type CouponRequest = BodyOf<'generateCoupon'>;

/** The body of POST /portal/cupones/generar, or null when a line or the days are not valid. */
export function couponRequest(
  lines: readonly CouponLine[],
  expiryDays: string,
): CouponRequest | null {
  if (lines.length === 0 || expiryDaysError(expiryDays) !== null) return null;
  const facturas: CouponRequest['facturas'] = [];
  let total = 0;
  for (const line of lines) {
    const parsed = parseAmount(line.text);
    if (!('cents' in parsed) || amountError(line.text, line.debt.debe) !== null) return null;
    total += parsed.cents;
    facturas.push({
      id: line.debt.id,
      tipo: line.debt.comprobante,
      numero: line.debt.nrocomp,
      monto: fromCents(parsed.cents),
    });
  }
  return { facturas, total: fromCents(total), dias_vencimiento: Number(expiryDays.trim()) };
}

/** `1234567890123456789` -> `1234 5678 9012 3456 789`: groups of four, for reading aloud. */
export function groupDigits(code: string): string {
  return code.replace(/\D/g, '').replace(/(\d{4})(?=\d)/g, '$1 ');
}

export const COUPON_STATES = ['pending', 'used', 'expired', 'cancelled'] as const;
export type CouponState = (typeof COUPON_STATES)[number];

const STATE_LABELS: Record<string, string> = {
  pending: 'Pendiente de pago',
  used: 'Pagado',
  expired: 'Vencido',
  cancelled: 'Anulado',
};

export function couponStateLabel(estado: string): string {
  return STATE_LABELS[estado] ?? estado;
}

/**
 * Why a coupon reads Anulado (docs/decisions.md #50; the ledger may also void one): a debt it
 * covers was paid otherwise, in full or in part, and owes less than the coupon's part of it.
 */
export const CANCELLED_COUPON_NOTE =
  'No lo pagues. Un cupón se anula cuando una factura que cubre se paga por otro medio (en línea, por transferencia, en la caja o con una nota de crédito), toda o en parte, y queda debiendo menos de lo que el cupón paga de ella; también puede anularlo la empresa. Si te queda algo por pagar, generá un cupón nuevo.';

/** GET /portal/cupones/mis-cupones's query: `estado` only when filtering. */
export function couponListQuery(
  estado: CouponState | null,
  offset: number,
): QueryOf<'listCoupons'> {
  return { ...(estado && { estado }), ...pagedQuery(PAGE_SIZE, offset) };
}

/**
 * A Spanish message for what generar can answer besides the API client's general ones:
 * 400 INVALID_REQUEST (a debt no longer pending or its balance now lower: the UI checked the
 * rest) and 422 CUPON_NO_DISPONIBLE (the API's own Spanish message names the limit reached).
 */
export function generateErrorMessage(
  code: KnownCode,
  serverMessage: string | undefined,
  fallback: string,
): string {
  if (code === 'INVALID_REQUEST')
    return 'Alguna factura ya no está pendiente o su saldo cambió. Actualizá la lista y revisá los importes.';
  if (code === 'CUPON_NO_DISPONIBLE')
    return serverMessage?.trim()
      ? `${serverMessage.trim()}. Consultá a la empresa.`
      : 'No se pueden emitir más cupones para tu cuenta. Consultá a la empresa.';
  return fallback;
}

/** Whether the debts should be read again after this error of generar. */
export function staleAfterGenerate(code: KnownCode): boolean {
  return code === 'INVALID_REQUEST';
}

/**
 * What a coupon is for, naming where it is paid: the business's networks (`redes_cobranza`,
 * ini `portal.cupones.redes`: "Pago Fácil, Rapipago") or, without them, the generic words.
 */
export function couponIntro(redes: string | null | undefined): string {
  const where = redes?.trim();
  return where
    ? `Un cupón sirve para pagar en efectivo o por transferencia, con su código de 19 números. Pagalo en ${withFullStop(where)}`
    : 'Un cupón sirve para pagar en efectivo o por transferencia en las redes de cobranza, con su código de 19 números.';
}

/** What to do with a coupon just generated, naming the networks when the business gives them. */
export function couponUse(redes: string | null | undefined): string {
  const where = redes?.trim().replace(/[.\s]+$/, '');
  return where
    ? `Pagalo en ${where}: mostrá el código de barras en la caja, o imprimilo.`
    : 'Mostrá el código de barras en la caja o en un punto de cobro, o imprimilo.';
}

/** What a pending coupon pays of one debt of the debts page. */
export interface CouponShare {
  /** The coupon's amount for that debt. */
  cents: number;
  /** Whether that is all the debt owes (`debe`): then any online payment of it voids the coupon. */
  whole: boolean;
}

/**
 * What `coupon` pays of `debt`, or null when it names another debt. docs/decisions.md #50: the
 * coupon is cancelled once the debt owes less than that, so paying the debt online voids it.
 */
export function couponShare(
  coupon: { facturas: readonly { id: string; monto: number }[] },
  debt: { id: string; debe: number },
): CouponShare | null {
  const factura = coupon.facturas.find((f) => f.id.toLowerCase() === debt.id.toLowerCase());
  if (!factura) return null;
  const cents = toCents(factura.monto);
  return { cents, whole: cents >= toCents(debt.debe) };
}
