import type { Clock } from '../../platform/clock.js';
import { isUuid } from '../../platform/ids.js';
import { AppError, assertThat } from '../../platform/errors.js';
import type { PrintDocument, PrintPaper } from '../../platform/db/types.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import {
  clearDefault,
  countPrintConfigs,
  deletePrintConfig,
  findPrintConfig,
  insertPrintConfig,
  listPrintConfigs,
  lockPortalUser,
  updatePrintConfig,
} from './config-queries.js';

/** Not in the spec: enough for every printer a user could have, a bound on what one user stores. */
export const MAX_PRINT_CONFIGS_PER_USER = 50;

interface PrintConfigInput {
  documento: PrintDocument;
  impresora: string;
  papel: PrintPaper;
  copias?: number | undefined;
  predeterminada?: boolean | undefined;
}

type PrintConfigChanges = {
  [K in keyof PrintConfigInput]?: PrintConfigInput[K] | undefined;
};

const NOT_FOUND_MESSAGE = 'Configuración de impresión inexistente';

/** Ids are uuids: any other text names no configuration (404, not a malformed request). */
function assertKnownShape(id: string): void {
  assertThat(isUuid(id), 'PRINT_CONFIG_NOT_FOUND', NOT_FOUND_MESSAGE);
}

/**
 * docs/decisions.md #40: print configurations per portal user, at most one default per documento.
 * Every change that may set a default locks the user's row first and clears the previous
 * default in the same transaction; a partial unique index backs the rule up.
 */
export function createPrintConfigService(deps: { clock: Clock }) {
  return {
    list(tenant: TenantContext, portalUserId: string, documento?: PrintDocument) {
      return listPrintConfigs(tenant, portalUserId, documento);
    },

    async get(tenant: TenantContext, portalUserId: string, id: string) {
      assertKnownShape(id);
      const config = await findPrintConfig(tenant.db, tenant, portalUserId, id);
      // Another user's id answers like an unknown one: ids are not disclosed (docs/decisions.md #33).
      assertThat(config, 'PRINT_CONFIG_NOT_FOUND', NOT_FOUND_MESSAGE);
      return config;
    },

    create(tenant: TenantContext, portalUserId: string, input: PrintConfigInput) {
      const now = deps.clock.now();
      return tenant.db.transaction().execute(async function createUnderUserLock(trx) {
        const exists = await lockPortalUser(trx, tenant, portalUserId);
        assertThat(exists, 'USER_NOT_FOUND', 'Usuario no encontrado');
        if ((await countPrintConfigs(trx, tenant, portalUserId)) >= MAX_PRINT_CONFIGS_PER_USER) {
          throw new AppError(
            'CONFLICT',
            `Se alcanzó el máximo de ${MAX_PRINT_CONFIGS_PER_USER} configuraciones de impresión`,
          );
        }
        // The optional fields' defaults live here only; the schema documents them.
        const predeterminada = input.predeterminada ?? false;
        if (predeterminada) {
          await clearDefault(trx, tenant, { portalUserId, documento: input.documento, now });
        }
        return insertPrintConfig(trx, tenant, {
          portal_user_id: portalUserId,
          documento: input.documento,
          impresora: input.impresora,
          papel: input.papel,
          copias: input.copias ?? 1,
          predeterminada,
          created_at: now,
        });
      });
    },

    update(tenant: TenantContext, portalUserId: string, id: string, changes: PrintConfigChanges) {
      assertKnownShape(id);
      const now = deps.clock.now();
      return tenant.db.transaction().execute(async function updateUnderUserLock(trx) {
        const current = (await lockPortalUser(trx, tenant, portalUserId))
          ? await findPrintConfig(trx, tenant, portalUserId, id)
          : undefined;
        assertThat(current, 'PRINT_CONFIG_NOT_FOUND', NOT_FOUND_MESSAGE);
        const documento = changes.documento ?? current.documento;
        // A default moved to another documento becomes that documento's default.
        if (changes.predeterminada ?? current.predeterminada) {
          await clearDefault(trx, tenant, { portalUserId, documento, exceptId: id, now });
        }
        return updatePrintConfig(trx, tenant, id, {
          ...(changes.documento !== undefined && { documento: changes.documento }),
          ...(changes.impresora !== undefined && { impresora: changes.impresora }),
          ...(changes.papel !== undefined && { papel: changes.papel }),
          ...(changes.copias !== undefined && { copias: changes.copias }),
          ...(changes.predeterminada !== undefined && { predeterminada: changes.predeterminada }),
          updated_at: now,
        });
      });
    },

    /** Deleting the default leaves that documento without one; none is promoted. */
    async remove(tenant: TenantContext, portalUserId: string, id: string) {
      assertKnownShape(id);
      const deleted = await deletePrintConfig(tenant, portalUserId, id);
      assertThat(deleted, 'PRINT_CONFIG_NOT_FOUND', NOT_FOUND_MESSAGE);
      return deleted;
    },
  };
}

export type PrintConfigService = ReturnType<typeof createPrintConfigService>;
