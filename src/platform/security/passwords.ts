import bcrypt from 'bcrypt';

/** SPEC.md: bcrypt with cost factor 12. bcrypt's async API runs on libuv's pool, off the event loop. */
export const BCRYPT_COST = 12;

export function hashPassword(plain: string): Promise<string> {
  return bcrypt.hash(plain, BCRYPT_COST);
}

export function verifyPassword(plain: string, hash: string): Promise<boolean> {
  return bcrypt.compare(plain, hash);
}
