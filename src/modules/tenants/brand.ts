import { DEFAULT_TIME_ZONE, isTimeZone } from '../../platform/dates.js';
import { parseLogo, type Logo } from '../../platform/tenancy/logo.js';
import { parseReminderSettings, REMINDER_INI } from '../reminders/index.js';

/*
 * The business's own portal (docs/api.md "GET /portal/empresas/{tenant_id}"): what `ini`
 * `portal.marca.*` says, checked so that nothing a tenant administrator types can become a link
 * to somewhere else, a script, or a file that is not the image it claims to be.
 */

export { MAX_LOGO_BYTES, parseLogo, type Logo } from '../../platform/tenancy/logo.js';

export const BRAND_KEYS = [
  'portal.marca.color',
  'portal.marca.telefono',
  'portal.marca.email',
  'portal.marca.whatsapp',
  'portal.marca.sitio_web',
  'portal.marca.direccion',
  'portal.marca.logo',
  'portal.cupones.redes',
  'sistema.zona_horaria',
  REMINDER_INI.enabled,
  REMINDER_INI.daysBefore,
  REMINDER_INI.daysOverdue,
] as const;

export interface Brand {
  color: string | null;
  telefono: string | null;
  email: string | null;
  whatsapp: string | null;
  sitio_web: string | null;
  direccion: string | null;
}

export interface TenantBrand {
  marca: Brand;
  logo: Logo | undefined;
  /** `portal.cupones.redes`: where a coupon can be paid ("Pago Fácil, Rapipago"). */
  redes: string | null;
  /** The tenant's time zone (`sistema.zona_horaria`, else Buenos Aires): the client's clock. */
  zona: string;
  /**
   * Whether the business sends due-date reminders (`portal.avisos.*`, read as the daily run
   * reads them), and their stages: the profile offers its switch only then (issue 38).
   */
  avisos: Reminders;
  /** The business's CUIT (11 digits) from the ERP's fiscal data, when it has one. */
  cuit: string | null;
}

export interface Reminders {
  habilitados: boolean;
  /** Days before the due date of the first reminder; 0: none before. */
  diasAntes: number;
  /** Days after the due date of each overdue reminder, ascending. */
  diasVencido: readonly number[];
}

/** `#rgb` or `#rrggbb`, as `#rrggbb` in lower case; anything else is no colour. */
function color(value: string | undefined): string | null {
  const match = value === undefined ? null : /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(value);
  if (!match?.[1]) return null;
  const hex = match[1].length === 3 ? [...match[1]].map((c) => c + c).join('') : match[1];
  return `#${hex.toLowerCase()}`;
}

/** Plain text, one line, at most `max` characters. */
function text(value: string | undefined, max: number): string | null {
  const line = value?.replace(/\s+/g, ' ').trim();
  return line ? line.slice(0, max) : null;
}

/** An http(s) address only: a `javascript:` or `data:` URL never reaches a link. */
function website(value: string | undefined): string | null {
  if (value === undefined) return null;
  try {
    const url = new URL(/^https?:\/\//i.test(value) ? value : `https://${value}`);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

function email(value: string | undefined): string | null {
  return value !== undefined &&
    /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(value) &&
    value.length <= 254
    ? value
    : null;
}

/** A phone number as digits with an optional leading +, for `tel:` and WhatsApp links. */
function phone(value: string | undefined): string | null {
  const digits = value?.replace(/[\s().-]/g, '');
  return digits && /^\+?[0-9]{6,20}$/.test(digits) ? digits : null;
}

/** An IANA zone the runtime knows, as docs/decisions.md #6 reads it; else Buenos Aires. */
function timeZone(value: string | undefined): string {
  return value !== undefined && isTimeZone(value) ? value : DEFAULT_TIME_ZONE;
}

function reminders(values: ReadonlyMap<string, string>): Reminders {
  // The run logs a bad value; here it only falls back to the same default.
  const { settings } = parseReminderSettings(values);
  return {
    habilitados: settings.enabled,
    diasAntes: settings.daysBefore,
    diasVencido: settings.daysOverdue,
  };
}

export function parseBrand(
  values: ReadonlyMap<string, string>,
  cuit: string | null = null,
): TenantBrand & { problem?: string } {
  const { logo, problem } = parseLogo(values.get('portal.marca.logo'));
  return {
    marca: {
      color: color(values.get('portal.marca.color')),
      telefono: text(values.get('portal.marca.telefono'), 40),
      email: email(values.get('portal.marca.email')),
      whatsapp: phone(values.get('portal.marca.whatsapp')),
      sitio_web: website(values.get('portal.marca.sitio_web')),
      direccion: text(values.get('portal.marca.direccion'), 200),
    },
    logo,
    redes: text(values.get('portal.cupones.redes'), 200),
    zona: timeZone(values.get('sistema.zona_horaria')),
    avisos: reminders(values),
    cuit,
    ...(problem !== undefined && { problem }),
  };
}
