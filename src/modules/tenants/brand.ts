import { SETTINGS } from '../../platform/settings/registry.js';
import type { SettingsOf } from '../../platform/settings/setting.js';
import type { Logo } from '../../platform/tenancy/logo.js';

/*
 * The business's own portal (docs/api.md "GET /portal/empresas/{tenant_id}"): what `ini`
 * `portal.marca.*` says, read through the settings registry, whose readings make sure nothing a
 * tenant administrator types can become a link to somewhere else, a script, or a file that is
 * not the image it claims to be.
 */

export { MAX_LOGO_BYTES, parseLogo, type Logo } from '../../platform/tenancy/logo.js';

/** The settings the public listing shows, read in one statement and kept a minute. */
export const BRAND_SETTINGS = {
  color: SETTINGS.brandColor,
  telefono: SETTINGS.brandPhone,
  email: SETTINGS.brandEmail,
  whatsapp: SETTINGS.brandWhatsapp,
  sitio_web: SETTINGS.brandWebsite,
  direccion: SETTINGS.brandAddress,
  logo: SETTINGS.brandLogo,
  redes: SETTINGS.couponNetworks,
  zona: SETTINGS.timeZone,
  // Read as the daily run reads them: the profile offers the reminders' switch only when on.
  avisos: SETTINGS.remindersOn,
  diasAntes: SETTINGS.reminderDaysBefore,
  diasVencido: SETTINGS.reminderDaysOverdue,
};

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

export function brandOf(
  values: SettingsOf<typeof BRAND_SETTINGS>,
  cuit: string | null = null,
): TenantBrand {
  return {
    marca: {
      color: values.color,
      telefono: values.telefono,
      email: values.email,
      whatsapp: values.whatsapp,
      sitio_web: values.sitio_web,
      direccion: values.direccion,
    },
    logo: values.logo,
    redes: values.redes,
    zona: values.zona,
    avisos: {
      habilitados: values.avisos,
      diasAntes: values.diasAntes,
      diasVencido: values.diasVencido,
    },
    cuit,
  };
}
