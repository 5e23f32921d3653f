import { DEFAULT_TIME_ZONE, isTimeZone } from '../dates.js';
import { isSchemaName } from '../db/identifiers.js';
import { MAX_NUMERIC_CENTS } from '../money.js';
import { parseLogo, type Logo } from '../tenancy/logo.js';
import {
  offUnlessOn,
  oneLine,
  onUnlessOff,
  plainText,
  wholeNumber,
  type Parsed,
  type Setting,
  type SettingFamily,
} from './setting.js';

/*
 * Every key of the tenant's `ini` the portal reads, with its reading and its default: the one
 * list docs/erp.md "Tenant settings" describes (test/platform/settings.test.ts holds
 * the two together). A module reads them through the reader, naming the ones it needs.
 */

function setting<T>(
  key: string,
  fallback: string,
  meaning: string,
  parse: (raw: string | undefined) => Parsed<T>,
  quotable = false,
): Setting<T> {
  return { key, fallback, meaning, parse, quotable };
}

/** An IANA zone the runtime knows (docs/decisions.md #6); else Buenos Aires. */
function timeZone(raw: string | undefined): Parsed<string> {
  if (raw === undefined) return { value: DEFAULT_TIME_ZONE };
  return isTimeZone(raw) ? { value: raw } : { value: DEFAULT_TIME_ZONE, bad: true };
}

/** A number of the whole range 1-`max` as `Number` reads it, else `fallback`. */
function integerUpTo(max: number, fallback: number) {
  return (raw: string | undefined): Parsed<number> => {
    if (raw === undefined) return { value: fallback };
    const number = Number(raw);
    return Number.isSafeInteger(number) && number > 0 && number <= max
      ? { value: number }
      : { value: fallback, bad: true };
  };
}

/** `#rgb` or `#rrggbb`, as `#rrggbb` in lower case; anything else is no colour. */
function color(raw: string | undefined): Parsed<string | null> {
  const match = raw === undefined ? null : /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(raw);
  if (!match?.[1]) return { value: null };
  const hex = match[1].length === 3 ? [...match[1]].map((c) => c + c).join('') : match[1];
  return { value: `#${hex.toLowerCase()}` };
}

/** An http(s) address only: a `javascript:` or `data:` URL never reaches a link. */
function website(raw: string | undefined): Parsed<string | null> {
  if (raw === undefined) return { value: null };
  try {
    const url = new URL(/^https?:\/\//i.test(raw) ? raw : `https://${raw}`);
    return { value: url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null };
  } catch {
    return { value: null };
  }
}

function email(raw: string | undefined): Parsed<string | null> {
  return {
    value:
      raw !== undefined && /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(raw) && raw.length <= 254
        ? raw
        : null,
  };
}

/** A phone number as digits with an optional leading +, for `tel:` and WhatsApp links. */
function phone(raw: string | undefined): Parsed<string | null> {
  const digits = raw?.replace(/[\s().-]/g, '');
  return { value: digits && /^\+?[0-9]{6,20}$/.test(digits) ? digits : null };
}

function logo(raw: string | undefined): Parsed<Logo | undefined> {
  const { logo: parsed, problem } = parseLogo(raw);
  return problem === undefined ? { value: parsed } : { value: undefined, bad: true };
}

/** The furthest a reminder may lie from its due date: a year. */
const MAX_REMINDER_DAYS = 365;
const MAX_OVERDUE_STAGES = 10;
export const DEFAULT_DAYS_OVERDUE: readonly number[] = [1, 7];

/** `1,7`: days after the due date, ascending and unique; `0` alone: none. */
function overdueDays(raw: string | undefined): Parsed<readonly number[]> {
  if (raw === undefined) return { value: DEFAULT_DAYS_OVERDUE };
  if (raw === '0') return { value: [] };
  const day = wholeNumber(1, MAX_REMINDER_DAYS, 0);
  const days = new Set<number>();
  for (const item of raw.split(',')) {
    const parsed = day(item.trim());
    if (parsed.bad) return { value: DEFAULT_DAYS_OVERDUE, bad: true };
    days.add(parsed.value);
  }
  if (days.size > MAX_OVERDUE_STAGES) return { value: DEFAULT_DAYS_OVERDUE, bad: true };
  return { value: [...days].sort((a, b) => a - b) };
}

/**
 * A 2-decimal amount as a tenant writes it: digits with an optional decimal point or comma
 * (`1500`, `1500.50`, `1500,5`); no thousands separators, so `1.500` is 1.5, never 1500. In cents;
 * `0` or absent: no minimum.
 */
function minimumCents(raw: string | undefined): Parsed<number | undefined> {
  if (raw === undefined) return { value: undefined };
  const match = /^(\d{1,13})(?:[.,](\d{1,2}))?$/.exec(raw);
  const cents = match?.[1]
    ? Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'))
    : Number.NaN;
  if (!(cents <= MAX_NUMERIC_CENTS)) return { value: undefined, bad: true };
  return { value: cents === 0 ? undefined : cents };
}

export const DEFAULT_MAIL_FROM = 'Portal de clientes <no-reply@localhost>';

export const SETTINGS = {
  gateway: setting(
    'sistema.payment_gateway',
    'none',
    "the tenant's gateway adapter (the payments module checks the id)",
    (raw) => ({ value: raw?.toLowerCase() }),
    true,
  ),
  timeZone: setting(
    'sistema.zona_horaria',
    '`America/Argentina/Buenos_Aires`',
    'IANA time zone of the tenant\'s "today"',
    timeZone,
    true,
  ),
  webhookToken: setting(
    'portal.webhook_token',
    'none',
    "the token of the tenant's webhook URL",
    plainText,
  ),
  receiptAccount: setting(
    'portal.recibo.cuenta_bancaria',
    'none',
    'movimi.cuenta_bancaria of portal payments',
    plainText,
  ),
  cashSchema: setting(
    'portal.recibo.caja_schema',
    'none',
    'the schema holding movimi',
    (raw) =>
      raw === undefined || isSchemaName(raw) ? { value: raw } : { value: undefined, bad: true },
    true,
  ),
  receiptPointOfSale: setting(
    'portal.recibo.punto_venta',
    '`1`',
    "the receipts' punto de venta",
    integerUpTo(9999, 1),
    true,
  ),
  smtpHost: setting('mail.smtp.host', 'none', "the tenant's SMTP server", plainText, true),
  smtpPort: setting('mail.smtp.port', '`587`', 'SMTP port', integerUpTo(65_535, 587), true),
  smtpUser: setting('mail.smtp.user', 'none', 'SMTP user', plainText),
  smtpPassword: setting('mail.smtp.password', 'empty', 'SMTP password', plainText),
  smtpSecure: setting(
    'mail.smtp.secure',
    '`false`',
    'TLS from the start of the connection',
    (raw) => ({ value: raw === 'true' }),
  ),
  mailFrom: setting(
    'mail.from',
    `\`${DEFAULT_MAIL_FROM}\``,
    "the sender of the portal's e-mails",
    (raw) => ({ value: raw ?? DEFAULT_MAIL_FROM }),
  ),
  paymentReceivedEmail: setting(
    'portal.mail.pago_recibido',
    'on',
    'the "Recibimos tu pago" e-mail after a receipt',
    onUnlessOff,
  ),
  refundEmail: setting(
    'portal.mail.devolucion',
    'on',
    'the "Devolución registrada" e-mail after a refund',
    onUnlessOff,
  ),
  brandColor: setting('portal.marca.color', 'none', "the brand's colour", color),
  brandPhone: setting('portal.marca.telefono', 'none', "the business's phone", oneLine(40)),
  brandEmail: setting('portal.marca.email', 'none', "the business's e-mail", email),
  brandWhatsapp: setting('portal.marca.whatsapp', 'none', "the business's WhatsApp", phone),
  brandWebsite: setting('portal.marca.sitio_web', 'none', "the business's website", website),
  brandAddress: setting('portal.marca.direccion', 'none', "the business's address", oneLine(200)),
  brandLogo: setting('portal.marca.logo', 'none', "the business's logo", logo),
  couponNetworks: setting(
    'portal.cupones.redes',
    'none',
    'where a coupon can be paid',
    oneLine(200),
  ),
  remindersOn: setting(
    'portal.avisos.habilitado',
    'off',
    'due-date reminders on',
    offUnlessOn,
    true,
  ),
  reminderDaysBefore: setting(
    'portal.avisos.dias_antes',
    '`3`',
    'days before the due date of the first reminder',
    wholeNumber(0, MAX_REMINDER_DAYS, 3),
    true,
  ),
  reminderDaysOverdue: setting(
    'portal.avisos.dias_vencido',
    '`1,7`',
    'days after the due date of the overdue reminders',
    overdueDays,
    true,
  ),
  reminderHour: setting(
    'portal.avisos.hora',
    '`9`',
    "the hour of the tenant's daily reminder run",
    wholeNumber(0, 23, 9),
    true,
  ),
  payLinkDays: setting(
    'portal.enlaces.dias',
    '`14`',
    'days a pay link lives; `0`: no pay links (docs/pay-links.md)',
    wholeNumber(0, 365, 14),
    true,
  ),
  partialPayments: setting(
    'portal.pagos.parciales',
    'off',
    "a payment's last debt may be paid in part",
    offUnlessOn,
  ),
  partialMinimum: setting(
    'portal.pagos.monto_minimo',
    'no minimum',
    'the least a part may be',
    minimumCents,
  ),
  transferProvider: setting(
    'portal.transferencias.proveedor',
    'none (off)',
    'the bank-transfer collection provider (the transfers module checks the id; docs/transfers.md)',
    (raw) => ({ value: raw?.toLowerCase() }),
    true,
  ),
  transferAccount: setting(
    'portal.transferencias.cuenta_bancaria',
    '`portal.recibo.cuenta_bancaria`',
    'movimi.cuenta_bancaria of the receipts of transfers',
    plainText,
  ),
} as const;

/** The gateways' keys: `portal.gateway.<id>.<name>`, each gateway's definition names its own. */
export const GATEWAY_SETTINGS: SettingFamily = {
  prefix: 'portal.gateway.',
  meaning: "a gateway's credentials and addresses (its definition lists them)",
};

/**
 * The transfer providers' keys: `portal.transferencias.<id>.<name>`, each provider's definition
 * names its own (docs/transfers.md).
 */
export const TRANSFER_PROVIDER_SETTINGS: SettingFamily = {
  prefix: 'portal.transferencias.',
  meaning: "a transfer provider's credentials and addresses (its definition lists them)",
};
