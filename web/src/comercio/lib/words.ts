/**
 * The console's words: states, reasons and actions in Spanish, what each action will do (the
 * sentence its dialog confirms, "Devolver $ 20.000,00 del pago 41 a Juan Pérez"), the reason's
 * check, and a moment as the API gives it. Pure, tested in test/web/unit/staff-console.test.ts.
 */
import type { InvitationRowRefusal } from '../../../../contract/links.js';
import type { AttentionReason, StaffAction } from '../../../../contract/staff.js';
import { formatMoney, plural } from '../../lib/format.js';

export const PAYMENT_STATE_LABELS = {
  pending: 'Pendiente',
  issued: 'En el checkout',
  approved: 'Aprobado',
  rejected: 'Rechazado',
  cancelled: 'Cancelado',
  refunded: 'Devuelto',
} as const;
export type PaymentState = keyof typeof PAYMENT_STATE_LABELS;

export function paymentStateLabel(estado: string): string {
  return Object.hasOwn(PAYMENT_STATE_LABELS, estado)
    ? PAYMENT_STATE_LABELS[estado as PaymentState]
    : estado;
}

export const ATTENTION_LABELS = {
  recibo_fallido: 'Recibo fallido',
  aprobacion_rechazada: 'Aprobación rechazada',
  checkout_sin_resolver: 'Checkout sin resolver',
  transferencia_sin_cliente: 'Transferencia sin cliente',
  transferencia_revertida: 'Transferencia revertida',
} as const satisfies Record<AttentionReason, string>;

export function attentionLabel(motivo: string): string {
  return Object.hasOwn(ATTENTION_LABELS, motivo)
    ? ATTENTION_LABELS[motivo as AttentionReason]
    : motivo;
}

export const ACTION_LABELS = {
  reintentar_recibo: 'Reintentar recibo',
  devolver: 'Devolución',
  desbloquear: 'Desbloqueo',
  cerrar_sesiones: 'Cierre de sesiones',
  acceso: 'Acceso',
  enlace: 'Enlace de pago',
  invitar: 'Invitación',
  asignar_transferencia: 'Transferencia asignada',
} as const satisfies Record<StaffAction, string>;

export function actionLabel(accion: string): string {
  return Object.hasOwn(ACTION_LABELS, accion) ? ACTION_LABELS[accion as StaffAction] : accion;
}

/** What the console can do to a payment or a customer account. */
export type ConsoleAction =
  | { kind: 'devolver'; paymentId: number; monto: number; cliente: string }
  | { kind: 'reintentar_recibo'; paymentId: number; cliente: string }
  | { kind: 'desbloquear'; cliente: string; dniCuit: string }
  | { kind: 'cerrar_sesiones'; cliente: string; dniCuit: string }
  | { kind: 'acceso'; habilitado: boolean; cliente: string; dniCuit: string }
  | { kind: 'enlace'; cliente: string; dniCuit: string };

/** The sentence the dialog confirms: exactly what pressing its button will do. */
export function actionSentence(action: ConsoleAction): string {
  switch (action.kind) {
    case 'devolver':
      return `Devolver ${formatMoney(action.monto)} del pago ${action.paymentId} a ${action.cliente}`;
    case 'reintentar_recibo':
      return `Reintentar el recibo del pago ${action.paymentId} de ${action.cliente}`;
    case 'desbloquear':
      return `Desbloquear la cuenta de ${action.cliente} (${action.dniCuit})`;
    case 'cerrar_sesiones':
      return `Cerrar las sesiones de ${action.cliente} (${action.dniCuit})`;
    case 'acceso':
      return `${action.habilitado ? 'Habilitar' : 'Deshabilitar'} el acceso al portal de ${action.cliente} (${action.dniCuit})`;
    case 'enlace':
      return `Crear un enlace de pago de la cuenta de ${action.cliente} (${action.dniCuit})`;
  }
}

/** What follows from it, said under the sentence. */
export function actionConsequence(action: ConsoleAction): string {
  switch (action.kind) {
    case 'devolver':
      return 'La plataforma de pago devuelve el dinero, el recibo se anula y el cliente recibe un e-mail con la devolución.';
    case 'reintentar_recibo':
      return 'Se intenta generar el recibo otra vez; nunca se genera un segundo recibo.';
    case 'desbloquear':
      return 'Se borran el bloqueo y los intentos fallidos: el cliente puede ingresar de nuevo.';
    case 'cerrar_sesiones':
      return 'El cliente sale del portal en todos sus dispositivos y tiene que volver a ingresar.';
    case 'acceso':
      return action.habilitado
        ? 'El cliente puede volver a ingresar al portal.'
        : 'El cliente no puede ingresar ni usar el portal hasta que se lo habilite; sus datos no cambian.';
    case 'enlace':
      return PAY_LINK_WARNING;
  }
}

/** The confirm button's words: the sentence's verb and object, short. */
export function actionButton(action: ConsoleAction): string {
  switch (action.kind) {
    case 'devolver':
      return `Devolver ${formatMoney(action.monto)}`;
    case 'reintentar_recibo':
      return 'Reintentar recibo';
    case 'desbloquear':
      return 'Desbloquear';
    case 'cerrar_sesiones':
      return 'Cerrar sesiones';
    case 'acceso':
      return action.habilitado ? 'Habilitar acceso' : 'Deshabilitar acceso';
    case 'enlace':
      return 'Crear enlace';
  }
}

/** What a pay link allows, said before it is made and beside it once it is. */
export const PAY_LINK_WARNING =
  'Quien tenga el enlace puede ver y pagar las deudas de esta cuenta sin contraseña, hasta que venza. Mandáselo solo al cliente, por un canal del comercio.';

/** Whether the API requires a reason for it (DESIGN: devolver and acceso). */
export function reasonRequired(action: ConsoleAction): boolean {
  return action.kind === 'devolver' || action.kind === 'acceso';
}

export const MAX_REASON = 500;

/** The reason's error, or null: required where the API requires it, at most 500 characters. */
export function reasonError(reason: string, required: boolean): string | null {
  const trimmed = reason.trim();
  if (trimmed === '' && required) return 'Escribí el motivo: queda en la auditoría.';
  if (trimmed.length > MAX_REASON) return `El motivo tiene hasta ${MAX_REASON} caracteres.`;
  return null;
}

/**
 * A moment as the API gives it (ISO 8601 with the tenant's offset): its own date and time of
 * day, `dd/mm/aaaa hh:mm`, so it reads in the tenant's zone whatever the browser's; `—` for
 * null or junk.
 */
export function formatMoment(value: string | null | undefined): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}))?/.exec(value ?? '');
  if (!match) return '—';
  const date = `${match[3]}/${match[2]}/${match[1]}`;
  return match[4] === undefined ? date : `${date} ${match[4]}:${match[5]}`;
}

/** The CSV's file name for a download of the list with these dates. */
export function csvFileName(desde: string, hasta: string): string {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  const from = day.test(desde) ? desde : '';
  const to = day.test(hasta) ? hasta : '';
  if (from && to) return `pagos-${from}-${to}.csv`;
  if (from) return `pagos-desde-${from}.csv`;
  if (to) return `pagos-hasta-${to}.csv`;
  return 'pagos.csv';
}

/** Why a row of a CSV of invitations was not sent (the API's `motivo`), in words. */
export const INVITATION_REFUSAL_LABELS = {
  fila_invalida: 'La fila no tiene sucursal, número de cliente y e-mail válidos',
  sucursal_invalida: 'La sucursal no es de la empresa',
  cliente_inexistente: 'No hay un cliente con ese número en la sucursal',
  ya_tiene_cuenta: 'El cliente ya tiene cuenta en el portal',
  invitado_hoy: 'Ya lo invitamos hoy',
  repetido: 'Repetido en el archivo',
} as const satisfies Record<InvitationRowRefusal, string>;

export function invitationRefusalLabel(motivo: string | null): string {
  if (motivo === null) return 'No enviada';
  return Object.hasOwn(INVITATION_REFUSAL_LABELS, motivo)
    ? INVITATION_REFUSAL_LABELS[motivo as InvitationRowRefusal]
    : motivo;
}

/** "2 enviadas, 1 no enviada": what a CSV of invitations did. */
export function invitationCsvSummary(enviadas: number, noEnviadas: number): string {
  return `${plural(enviadas, 'enviada', 'enviadas')}, ${plural(noEnviadas, 'no enviada', 'no enviadas')}.`;
}

/** A free-text filter as the API takes it: trimmed, 1-100 characters, or absent. */
export function searchTerm(value: string): string | undefined {
  const trimmed = value.trim().slice(0, 100);
  return trimmed === '' ? undefined : trimmed;
}
