import { greeting } from '../../platform/mail/greeting.js';
import type { MailMessage } from '../../platform/mail/mailer.js';
import { centsToNumeric, numericToCents } from '../../platform/money.js';
import { formatDate, formatMoney } from '../../platform/format.js';
import { restPhrase } from '../../../contract/names.js';

/** A debt the reminder lists, as the ledger has it when the e-mail is written. */
export interface ReminderDebt {
  comprobante: string;
  nrocomp: string;
  /** `YYYY-MM-DD`. */
  vencimiento: string;
  /** The amount a payment of it must pay (`ordcta.debe`, what GET /portal/deudas shows). */
  debe: string;
  /** What it was issued for: more than `debe` once part of it was paid. */
  importe: string;
}

/** Whole days from `from` to `to` (`YYYY-MM-DD` both), in calendar terms. */
function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

function whenDue(vencimiento: string, today: string): string {
  const days = daysBetween(today, vencimiento);
  const date = formatDate(vencimiento);
  if (days === 0) return `vence hoy, ${date}`;
  if (days === 1) return `vence mañana, ${date}`;
  if (days > 1) return `vence el ${date} (en ${days} días)`;
  if (days === -1) return `venció ayer, ${date}`;
  return `venció el ${date} (hace ${-days} días)`;
}

function line(debt: ReminderDebt, today: string): string {
  // docs/decisions.md #51: a debt paid in part says what is left of what.
  const amount =
    numericToCents(debt.debe) < numericToCents(debt.importe)
      ? restPhrase(formatMoney(debt.debe), formatMoney(debt.importe)).toLowerCase()
      : formatMoney(debt.debe);
  return `  ${debt.comprobante} ${debt.nrocomp}: ${amount}, ${whenDue(debt.vencimiento, today)}`;
}

/**
 * The reminder (docs/reminders.md "The e-mail"), in the voseo of the portal's pages: the overdue
 * debts and those coming due, each with its amount and due date, the total, the link to the
 * debts page and the link that turns reminders off. Plain text, like every e-mail of the portal.
 */
export function reminderMessage(input: {
  to: string;
  nombre: string;
  tenantName: string;
  /** The tenant's date when the e-mail is written. */
  today: string;
  debts: readonly ReminderDebt[];
  debtsUrl: string;
  /** A pay link of the account: paying needs no password (docs/pay-links.md). */
  payLink?: { url: string; until: string } | undefined;
  unsubscribeUrl: string;
}): MailMessage {
  const { today, debts } = input;
  const overdue = debts.filter((debt) => debt.vencimiento < today);
  const coming = debts.filter((debt) => debt.vencimiento >= today);
  const totalCents = debts.reduce((sum, debt) => sum + numericToCents(debt.debe), 0);
  const section = (title: string, list: readonly ReminderDebt[]) =>
    list.length === 0 ? [] : [title, ...list.map((debt) => line(debt, today)), ''];
  return {
    to: input.to,
    subject:
      overdue.length > 0
        ? `Tenés comprobantes vencidos - ${input.tenantName}`
        : `Tenés comprobantes por vencer - ${input.tenantName}`,
    text: [
      greeting(input.nombre),
      '',
      `Te escribimos de ${input.tenantName} para recordarte estos comprobantes pendientes de pago.`,
      '',
      ...section('Vencidos:', overdue),
      ...section('Por vencer:', coming),
      `Total: ${formatMoney(centsToNumeric(totalCents))}`,
      '',
      ...(input.payLink
        ? [
            'Pagalos desde este enlace, sin contraseña (sirve hasta el ' +
              `${formatDate(input.payLink.until)}):`,
            input.payLink.url,
            '',
            'O ingresá al portal de clientes:',
            input.debtsUrl,
          ]
        : ['Podés verlos y pagarlos en el portal de clientes:', input.debtsUrl]),
      '',
      'Si ya pagaste, no tengas en cuenta este aviso.',
      '',
      '¿No querés recibir más estos avisos? Desactivalos en tu perfil del portal o con este enlace:',
      input.unsubscribeUrl,
    ].join('\n'),
    headers: {
      // RFC 2369 and RFC 8058: mail clients show their own "unsubscribe" button, which POSTs
      // `List-Unsubscribe=One-Click` to this URL.
      'List-Unsubscribe': `<${input.unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
