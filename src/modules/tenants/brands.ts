import { DEFAULT_TIME_ZONE } from '../../platform/dates.js';
import type { SettingsReader } from '../../platform/settings/reader.js';
import type { Issuers } from '../../platform/tenancy/issuer.js';
import type { Tenancy } from '../../platform/tenancy/tenancy.js';
import { BRAND_SETTINGS, brandOf, type TenantBrand } from './brand.js';

const NO_BRAND: TenantBrand = {
  marca: {
    color: null,
    telefono: null,
    email: null,
    whatsapp: null,
    sitio_web: null,
    direccion: null,
  },
  logo: undefined,
  redes: null,
  zona: DEFAULT_TIME_ZONE,
  avisos: { habilitados: false, diasAntes: 0, diasVencido: [] },
  cuit: null,
};

/**
 * Each tenant's brand: its settings (cached, at most a minute old: the login page and the logo
 * ask on every load) and its issuer's CUIT (cached alike), read side by side.
 */
export function createTenantBrands(deps: {
  tenancy: Pick<Tenancy, 'database'>;
  settings: SettingsReader;
  issuers: Issuers;
}) {
  return {
    async brandOf(tenantId: number): Promise<TenantBrand> {
      const db = await deps.tenancy.database(tenantId);
      if (!db) return NO_BRAND;
      const [values, { cuit }] = await Promise.all([
        deps.settings.read({ tenantId, db }, BRAND_SETTINGS, 'cached'),
        deps.issuers.issuerOf(tenantId, db),
      ]);
      return brandOf(values, cuit);
    },
  };
}

export type TenantBrands = ReturnType<typeof createTenantBrands>;
