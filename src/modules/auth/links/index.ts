import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Audit, RequestOrigin } from '../../../platform/audit.js';
import type { PayLinkStatus } from '../../../platform/auth/pay-links.js';
import { revokeAccountPayLinks } from '../../../platform/auth/pay-links.js';
import type { SessionVersions } from '../../../platform/auth/session-versions.js';
import type { Clock } from '../../../platform/clock.js';
import type { PayLinkReason, SystemDatabase } from '../../../platform/db/types.js';
import { AppError } from '../../../platform/errors.js';
import { isUuid } from '../../../platform/ids.js';
import { sha256Hex } from '../../../platform/security/secrets.js';
import {
  PAY_LINK_TOKEN_TTL_SECONDS,
  type AccessTokens,
} from '../../../platform/security/tokens.js';
import type { SettingsReader } from '../../../platform/settings/reader.js';
import { SETTINGS } from '../../../platform/settings/registry.js';
import type { Tenancy, TenantContext } from '../../../platform/tenancy/tenancy.js';
import { findUserProfile } from '../queries.js';
import { findLiveLinks, insertPayLink, revokeLink, useLiveLink } from './queries.js';

/*
 * Pay links (docs/pay-links.md; docs/decisions.md #44-45): a link names one portal account, its
 * token (256 random bits, base64url) is kept only as its SHA-256, and it is exchanged for a
 * 15-minute access token with `alcance: "pago"`, which only the payer door's routes take and
 * which is never refreshed. A link dies with its expiry, its own revocation, or the account's
 * password (change, reset), staff's "cerrar sesiones" or "acceso".
 */

const INVALID_LINK_MESSAGE = 'El enlace de pago no es válido o ya venció';
const LINK_DAYS = { days: SETTINGS.payLinkDays };

/** A new link's or invitation's token: 256 random bits. */
export function newLinkToken(): string {
  return randomBytes(32).toString('base64url');
}

export interface CreatedLink {
  id: number;
  url: string;
  vence: string;
}

/** What making a link takes: the API has it, and so does `cli avisos enviar`. */
export interface PayLinkMakerDeps {
  systemDb: Kysely<SystemDatabase>;
  settings: SettingsReader;
  clock: Clock;
  /** The web client's public address (PORTAL_ALLOWED_ORIGIN's first), where `/e/...` pages are. */
  webOrigin: string | undefined;
}

/** Making a link (any process); exchanging and revoking them are the API's (createPayLinks). */
export function createPayLinkMaker(deps: PayLinkMakerDeps) {
  const { systemDb, settings, clock } = deps;

  /** Days a link lives for the tenant: 0 turns them off. */
  async function daysOf(tenant: Pick<TenantContext, 'tenantId' | 'db'>): Promise<number> {
    return (await settings.read(tenant, LINK_DAYS, 'cached')).days;
  }

  return {
    daysOf,

    /**
     * A link to the account; undefined when the tenant turned links off (`portal.enlaces.dias`
     * = 0) or the deployment has no web address to put it on.
     */
    async create(
      tenant: TenantContext,
      portalUserId: string,
      motivo: PayLinkReason,
    ): Promise<CreatedLink | undefined> {
      const days = await daysOf(tenant);
      if (days === 0 || deps.webOrigin === undefined) return undefined;
      const token = newLinkToken();
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + days * 86_400_000);
      const { id } = await insertPayLink(systemDb, {
        tokenHash: sha256Hex(token),
        tenantId: tenant.tenantId,
        sucursalId: tenant.sucursalId,
        portalUserId,
        motivo,
        expiresAt,
      });
      return {
        id,
        url: `${deps.webOrigin}/e/${tenant.tenantId}/pagar#enlace=${token}`,
        vence: expiresAt.toISOString(),
      };
    },
  };
}

export function createPayLinks(
  deps: PayLinkMakerDeps & {
    tenancy: Tenancy;
    tokens: AccessTokens;
    versions: SessionVersions;
    status: PayLinkStatus;
    audit: Audit;
  },
) {
  const { systemDb, tenancy, tokens, versions, status, audit, clock } = deps;

  return {
    ...createPayLinkMaker(deps),

    /** `POST /portal/auth/enlace`: a live link's token for a token that may only pay. */
    async exchange(token: string, origin: RequestOrigin) {
      const now = clock.now();
      const link = await useLiveLink(systemDb, sha256Hex(token), now);
      if (!link) throw new AppError('INVALID_LINK', INVALID_LINK_MESSAGE);
      const tenant = await tenancy.tryResolve(link.tenant_id, link.sucursal_id);
      if (!tenant) throw new AppError('INVALID_LINK', INVALID_LINK_MESSAGE);
      const [version, profile, access] = await Promise.all([
        versions.current(tenant, link.portal_user_id),
        findUserProfile(tenant, link.portal_user_id),
        tenant.db
          .withSchema(tenant.customerSchema)
          .selectFrom('portal_users')
          .select('acceso_habilitado')
          .where('id', '=', link.portal_user_id)
          .executeTakeFirst(),
      ]);
      if (version === undefined || !profile || !access?.acceso_habilitado) {
        throw new AppError('INVALID_LINK', INVALID_LINK_MESSAGE);
      }
      const linkId = Number(link.id);
      const accessToken = await tokens.sign(
        {
          portal_user_id: link.portal_user_id,
          tenant_id: tenant.tenantId,
          sucursal_id: tenant.sucursalId,
          sv: version,
          alcance: 'pago',
          enlace: linkId,
        },
        PAY_LINK_TOKEN_TTL_SECONDS,
      );
      await audit.record(tenant, origin, {
        event: 'login_link',
        portalUserId: link.portal_user_id,
        details: { motivo: link.motivo },
      });
      return {
        access_token: accessToken,
        expires_in: PAY_LINK_TOKEN_TTL_SECONDS,
        alcance: 'pago' as const,
        user: { portal_user_id: link.portal_user_id, nombre: profile.cnom.trim() },
      };
    },

    /** The account's live links, newest first. */
    async list(tenant: TenantContext, portalUserId: string) {
      const rows = await findLiveLinks(
        systemDb,
        { tenantId: tenant.tenantId, portalUserId },
        clock.now(),
      );
      return rows.map((row) => ({
        id: Number(row.id),
        motivo: row.motivo,
        creado: row.created_at.toISOString(),
        vence: row.expires_at.toISOString(),
        ultimo_uso: row.last_used_at?.toISOString() ?? null,
        usos: row.uses,
      }));
    },

    /** One of the account's links revoked; 404 NOT_FOUND when it is not a live one of theirs. */
    async revoke(tenant: TenantContext, portalUserId: string, linkId: number) {
      const revoked =
        Number.isSafeInteger(linkId) &&
        (await revokeLink(
          systemDb,
          { tenantId: tenant.tenantId, portalUserId },
          linkId,
          clock.now(),
        ));
      if (!revoked) throw new AppError('NOT_FOUND', 'Ese enlace no existe o ya no sirve');
      status.forget([linkId]);
      return { id: linkId, revocado: true as const };
    },

    /** Every live link of the account revoked (a password, staff): called with the session's end. */
    async revokeAll(tenant: TenantContext, portalUserId: string): Promise<void> {
      if (!isUuid(portalUserId)) return;
      const ids = await revokeAccountPayLinks(
        systemDb,
        { tenantId: tenant.tenantId, portalUserId },
        clock.now(),
      );
      status.forget(ids);
    },
  };
}

export type PayLinks = ReturnType<typeof createPayLinks>;
