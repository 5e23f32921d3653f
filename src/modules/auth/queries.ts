import { sql, type Kysely } from 'kysely';
import { nextSessionVersion } from '../../platform/auth/session-versions.js';
import { inCustomerSchema, type TenantExecutor } from '../../platform/db/executor.js';
import type { SystemDatabase } from '../../platform/db/types.js';
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
  /** The business lets the account in (docs/staff.md "acceso"). */
  acceso_habilitado: boolean;
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
      'acceso_habilitado',
    ])
    .executeTakeFirst();
}

/**
 * No failed logins counted and no lock: a right password of a disabled account (its attempt was
 * claimed as failed), and staff's desbloquear. Whether the user exists.
 */
export async function clearFailedLogins(
  db: TenantExecutor,
  tenant: TenantContext,
  id: string,
  now: Date,
): Promise<boolean> {
  const result = await inCustomerSchema(db, tenant)
    .updateTable('portal_users')
    .set({ failed_login_attempts: 0, locked_until: null, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The business's say over the account (docs/staff.md "acceso"); whether the user exists. */
export async function setAccountAccess(
  db: TenantExecutor,
  tenant: TenantContext,
  id: string,
  enabled: boolean,
  now: Date,
): Promise<boolean> {
  const result = await inCustomerSchema(db, tenant)
    .updateTable('portal_users')
    .set({ acceso_habilitado: enabled, updated_at: now })
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
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

/*
 * Sessions (sessions.ts, docs/authentication.md "Refresh grace and session ends"): the session
 * is the hash in the user's row; the system database's `portal_refresh_tokens` indexes every
 * token a session handed out, by hash.
 */

/** What ended a session: its tokens are refused saying so (system/0006's `ended_reason`). */
export type SessionEnd = NonNullable<SystemDatabase['portal_refresh_tokens']['ended_reason']>;

/** The user's current refresh token (its hash), replacing the one before. */
export async function storeRefreshToken(
  db: TenantExecutor,
  tenant: TenantContext,
  portalUserId: string,
  token: { hash: string; expiresAt: Date },
): Promise<void> {
  await inCustomerSchema(db, tenant)
    .updateTable('portal_users')
    .set({ refresh_token: token.hash, refresh_token_expires: token.expiresAt })
    .where('id', '=', portalUserId)
    .execute();
}

/**
 * No refresh token is current, and the session version moves on (`nextSessionVersion`: call
 * `SessionVersions.ended` before).
 */
export async function endUserSession(
  db: TenantExecutor,
  tenant: TenantContext,
  portalUserId: string,
  now: Date,
): Promise<void> {
  await inCustomerSchema(db, tenant)
    .updateTable('portal_users')
    .set({
      refresh_token: null,
      refresh_token_expires: null,
      session_version: nextSessionVersion,
      updated_at: now,
    })
    .where('id', '=', portalUserId)
    .execute();
}

/** The user's session under the row lock, for a refresh to rotate. */
export function lockUserSession(db: TenantExecutor, tenant: TenantContext, portalUserId: string) {
  return inCustomerSchema(db, tenant)
    .selectFrom('portal_users')
    .select([
      'refresh_token',
      'refresh_token_expires',
      'locked_until',
      'session_version',
      'acceso_habilitado',
    ])
    .where('id', '=', portalUserId)
    .forUpdate()
    .executeTakeFirst();
}

/** Whether this call created the entry (a racing refresh of the same token may have). */
export async function indexRefreshToken(
  systemDb: Kysely<SystemDatabase>,
  tenant: TenantContext,
  portalUserId: string,
  token: { hash: string; expiresAt: Date },
): Promise<boolean> {
  const created = await systemDb
    .insertInto('portal_refresh_tokens')
    .values({
      token_hash: token.hash,
      tenant_id: tenant.tenantId,
      sucursal_id: tenant.sucursalId,
      portal_user_id: portalUserId,
      expires_at: token.expiresAt,
    })
    .onConflict((conflict) => conflict.column('token_hash').doNothing())
    .returning('token_hash')
    .executeTakeFirst();
  return created !== undefined;
}

/** The index entries of these hashes (a presented token's and its successor's), in one read. */
export function findRefreshTokens(systemDb: Kysely<SystemDatabase>, hashes: readonly string[]) {
  return systemDb
    .selectFrom('portal_refresh_tokens')
    .selectAll()
    .where('token_hash', 'in', hashes)
    .execute();
}

/** Every live token of the user's sessions is refused from now on, saying why. */
export async function endRefreshTokens(
  systemDb: Kysely<SystemDatabase>,
  tenant: TenantContext,
  portalUserId: string,
  reason: SessionEnd,
): Promise<void> {
  await systemDb
    .updateTable('portal_refresh_tokens')
    .set({ ended_reason: reason })
    .where('tenant_id', '=', tenant.tenantId)
    .where('portal_user_id', '=', portalUserId)
    .where('ended_reason', 'is', null)
    .execute();
}

/** The token was replaced by its successor at `now`, unless a racing refresh marked it first. */
export async function markRefreshTokenRotated(
  systemDb: Kysely<SystemDatabase>,
  hash: string,
  now: Date,
): Promise<void> {
  await systemDb
    .updateTable('portal_refresh_tokens')
    .set({ rotated_at: now })
    .where('token_hash', '=', hash)
    .where('rotated_at', 'is', null)
    .execute();
}

export async function deleteRefreshToken(
  systemDb: Kysely<SystemDatabase>,
  hash: string,
): Promise<void> {
  await systemDb.deleteFrom('portal_refresh_tokens').where('token_hash', '=', hash).execute();
}

/** The sweep of entries that expired before `before`. */
export async function deleteRefreshTokensExpiredBefore(
  systemDb: Kysely<SystemDatabase>,
  before: Date,
): Promise<void> {
  await systemDb.deleteFrom('portal_refresh_tokens').where('expires_at', '<', before).execute();
}

/* Password reset (password-reset.ts, docs/decisions.md #13 and #14). */

/**
 * Counts a reset-code request in the account's row and stores the new code only within the cap
 * (`max` requests per fixed window of `windowMs`). One statement: concurrent requests queue on
 * the row lock and each sees the count the previous one left, so no interleaving gets past the
 * cap. Returns whether the code was stored.
 */
export async function storeResetCodeWithinCap(
  db: TenantExecutor,
  tenant: TenantContext,
  portalUserId: string,
  code: { hash: string; expiresAt: Date; now: Date; max: number; windowMs: number },
): Promise<boolean> {
  const { hash, expiresAt, now, max, windowMs } = code;
  const windowOver = sql<boolean>`(reset_window_start IS NULL
    OR reset_window_start <= ${new Date(now.getTime() - windowMs)}::timestamptz)`;
  // Every SET expression reads the row as it was before this statement.
  const withinCap = sql<boolean>`(${windowOver} OR reset_requests < ${max})`;
  const row = await inCustomerSchema(db, tenant)
    .updateTable('portal_users')
    .set({
      // Saturates past the cap: only "over" matters there, and the column can never overflow.
      reset_requests: sql<number>`CASE WHEN ${windowOver} THEN 1
        ELSE LEAST(reset_requests + 1, ${max + 1}) END`,
      reset_window_start: sql<Date>`CASE WHEN ${windowOver} THEN ${now}::timestamptz
        ELSE reset_window_start END`,
      // A new request replaces the previous code (and its attempt count); one past the cap
      // leaves the code in force untouched.
      reset_code_hash: sql<string>`CASE WHEN ${withinCap} THEN ${hash} ELSE reset_code_hash END`,
      reset_code_expires: sql<Date>`CASE WHEN ${withinCap} THEN ${expiresAt}::timestamptz
        ELSE reset_code_expires END`,
      reset_code_attempts: sql<number>`CASE WHEN ${withinCap} THEN 0 ELSE reset_code_attempts END`,
      updated_at: now,
    })
    .where('id', '=', portalUserId)
    .returning('reset_requests')
    .executeTakeFirst();
  return row !== undefined && row.reset_requests <= max;
}

/** Where the reset-code e-mail goes, and the code in force (its hash). */
export function findResetCodeRecipient(
  db: TenantExecutor,
  tenant: TenantContext,
  portalUserId: string,
) {
  return inCustomerSchema(db, tenant)
    .selectFrom('portal_users')
    .select(['email', 'reset_code_hash'])
    .where('id', '=', portalUserId)
    .executeTakeFirst();
}

function resetCodeQuery(db: TenantExecutor, tenant: TenantContext, portalUserId: string) {
  return inCustomerSchema(db, tenant)
    .selectFrom('portal_users')
    .select(['reset_code_hash', 'reset_code_expires', 'reset_code_attempts'])
    .where('id', '=', portalUserId);
}

/** The code in force and its attempts so far (the user is known to exist). */
export function findResetCode(db: TenantExecutor, tenant: TenantContext, portalUserId: string) {
  return resetCodeQuery(db, tenant, portalUserId).executeTakeFirstOrThrow();
}

/** As `findResetCode`, under the row lock: concurrent guesses are judged one after another. */
export function lockResetCode(db: TenantExecutor, tenant: TenantContext, portalUserId: string) {
  return resetCodeQuery(db, tenant, portalUserId).forUpdate().executeTakeFirstOrThrow();
}

/** A wrong code counts as an attempt; `burn` (the last attempt allowed) drops the code too. */
export async function recordResetCodeAttempt(
  db: TenantExecutor,
  tenant: TenantContext,
  portalUserId: string,
  attempt: { attempts: number; burn: boolean },
): Promise<void> {
  await inCustomerSchema(db, tenant)
    .updateTable('portal_users')
    .set({
      reset_code_attempts: attempt.attempts,
      ...(attempt.burn && { reset_code_hash: null, reset_code_expires: null }),
    })
    .where('id', '=', portalUserId)
    .execute();
}

/** The new password of an accepted code: the code is spent and the login lock lifted. */
export async function storeResetPassword(
  db: TenantExecutor,
  tenant: TenantContext,
  portalUserId: string,
  passwordHash: string,
  now: Date,
): Promise<void> {
  await inCustomerSchema(db, tenant)
    .updateTable('portal_users')
    .set({
      password_hash: passwordHash,
      reset_code_hash: null,
      reset_code_expires: null,
      reset_code_attempts: 0,
      failed_login_attempts: 0,
      locked_until: null,
      updated_at: now,
    })
    .where('id', '=', portalUserId)
    .execute();
}
