import bcrypt from 'bcrypt';

/** docs/api.md: bcrypt with cost factor 12. bcrypt's async API runs on libuv's pool, off the event loop. */
export const BCRYPT_COST = 12;

export interface PasswordHasher {
  hash(plain: string): Promise<string>;
  verify(plain: string, hash: string): Promise<boolean>;
}

export const bcryptPasswords: PasswordHasher = {
  hash: (plain) => bcrypt.hash(plain, BCRYPT_COST),
  verify: (plain, hash) => bcrypt.compare(plain, hash),
};

export function hashPassword(plain: string): Promise<string> {
  return bcryptPasswords.hash(plain);
}

/**
 * A cost-12 hash of a random string nobody knows. Login compares against it when the user does
 * not exist, so an unknown user costs the same single bcrypt comparison as a wrong password
 * (docs/decisions.md #8).
 */
export const DUMMY_PASSWORD_HASH = '$2b$12$eUO/m51ivDsvnCcW3157zemdC/jdeOK5OnzYnh8zWFweosjrQFWJi';
