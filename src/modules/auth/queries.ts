import { sql } from 'kysely';
import { inCustomerSchema, type TenantExecutor } from '../../platform/db/executor.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';

export async function findCustomerByIdentifier(tenant: TenantContext, digits: string) {
  // ccui may be stored with dashes: compare digits only (docs/erp.md "ordcon").
  return inCustomerSchema(tenant.db, tenant)
    .selectFrom('ordcon')
    .select(['cnro', 'cnom', 'ccui'])
    .where(sql<string>`regexp_replace(ccui, '[^0-9]', '', 'g')`, '=', digits)
    .orderBy('cnro')
    .limit(1)
    .executeTakeFirst();
}

export async function portalUserExists(tenant: TenantContext, cnro: number, digits: string) {
  const row = await inCustomerSchema(tenant.db, tenant)
    .selectFrom('portal_users')
    .select('id')
    .where((eb) => eb.or([eb('cnro', '=', cnro), eb('dni_cuit', '=', digits)]))
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertPortalUser(
  tenant: TenantContext,
  user: { cnro: number; dniCuit: string; email: string; passwordHash: string; now: Date },
) {
  return inCustomerSchema(tenant.db, tenant)
    .insertInto('portal_users')
    .values({
      cnro: user.cnro,
      dni_cuit: user.dniCuit,
      email: user.email,
      password_hash: user.passwordHash,
      created_at: user.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

const LOGIN_COLUMNS = [
  'id',
  'cnro',
  'email',
  'password_hash',
  'failed_login_attempts',
  'locked_until',
] as const;

export function findUserForLogin(tenant: TenantContext, digits: string) {
  return inCustomerSchema(tenant.db, tenant)
    .selectFrom('portal_users')
    .select(LOGIN_COLUMNS)
    .where('dni_cuit', '=', digits)
    .executeTakeFirst();
}

export function findUserById(db: TenantExecutor, tenant: TenantContext, id: string) {
  return inCustomerSchema(db, tenant)
    .selectFrom('portal_users')
    .select([...LOGIN_COLUMNS, 'refresh_token', 'refresh_token_expires'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The user with its customer record: what /auth/me and /perfil show. */
export function findUserProfile(tenant: TenantContext, id: string) {
  return inCustomerSchema(tenant.db, tenant)
    .selectFrom('portal_users as u')
    .innerJoin('ordcon as c', 'c.cnro', 'u.cnro')
    .select([
      'u.id',
      'u.email',
      'u.telefono',
      'u.last_login',
      'u.ingreso_anterior',
      'u.cnro',
      'c.cnom',
      'c.ccui',
    ])
    .where('u.id', '=', id)
    .executeTakeFirst();
}

export interface ClaimedAttempt {
  id: string;
  cnro: number;
  email: string;
  password_hash: string;
  session_version: number;
  /** Attempts without a success so far, this one included. */
  failed_login_attempts: number;
  /** Set when this attempt was the last one allowed: it locked the account for the others. */
  locked_until: Date | null;
}

/**
 * Claims one login attempt before the password is compared, in one statement under the row
 * lock: the attempt is counted as failed until it proves otherwise, an expired lock starts the
 * count again, and the attempt that reaches `maxAttempts` sets the lock itself. So however many
 * wrong passwords arrive at once, at most `maxAttempts` of them are ever compared. No row: the
 * account is locked (or there is no such user).
 */
export function claimLoginAttempt(
  tenant: TenantContext,
  digits: string,
  options: { maxAttempts: number; lockUntil: Date; now: Date },
): Promise<ClaimedAttempt | undefined> {
  const attempts = sql<number>`(CASE WHEN locked_until IS NULL THEN failed_login_attempts ELSE 0 END) + 1`;
  return inCustomerSchema(tenant.db, tenant)
    .updateTable('portal_users')
    .set({
      failed_login_attempts: attempts,
      locked_until: sql<Date | null>`CASE WHEN ${attempts} >= ${options.maxAttempts}
        THEN ${options.lockUntil}::timestamptz ELSE NULL END`,
      updated_at: options.now,
    })
    .where('dni_cuit', '=', digits)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', options.now)]))
    .returning([
      'id',
      'cnro',
      'email',
      'password_hash',
      'session_version',
      'failed_login_attempts',
      'locked_until',
    ])
    .executeTakeFirst();
}

/**
 * A matching password ends the count, unless another attempt locked the account while this one
 * was being compared: the lock this attempt set itself (`ownLock`) is the only one it may lift.
 * Undefined when the account is locked by another attempt.
 */
export function recordSuccessfulLogin(
  tenant: TenantContext,
  id: string,
  options: { ownLock: Date | null; now: Date },
) {
  return inCustomerSchema(tenant.db, tenant)
    .updateTable('portal_users')
    .set({
      failed_login_attempts: 0,
      locked_until: null,
      // The right-hand side reads the row as it was: the previous login moves aside.
      ingreso_anterior: sql<Date | null>`last_login`,
      last_login: options.now,
      updated_at: options.now,
    })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('locked_until', 'is', null),
        eb('locked_until', '<=', options.now),
        ...(options.ownLock === null ? [] : [eb('locked_until', '=', options.ownLock)]),
      ]),
    )
    .returning(['id', 'session_version'])
    .executeTakeFirst();
}

export async function updatePasswordHash(
  db: TenantExecutor,
  tenant: TenantContext,
  id: string,
  passwordHash: string,
  now: Date,
): Promise<void> {
  await inCustomerSchema(db, tenant)
    .updateTable('portal_users')
    .set({ password_hash: passwordHash, updated_at: now })
    .where('id', '=', id)
    .execute();
}
