import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';

/** docs/api.md: bcrypt with cost factor 12. bcrypt's async API runs on libuv's pool, off the event loop. */
export const BCRYPT_COST = 12;

export interface PasswordHasher {
  hash(plain: string): Promise<string>;
  verify(plain: string, hash: string): Promise<boolean>;
  /**
   * A hash, at this hasher's own cost, of a random string nobody knows. Login compares against it
   * when the user does not exist, so an unknown user costs the same single comparison as a wrong
   * password (docs/decisions.md #8); it has to match the cost of the hashes `hash` writes.
   */
  readonly unknownUserHash: string;
}

/** bcrypt at `cost`, with `unknownUserHash` made at that same cost. */
export function bcryptHasher(cost: number, unknownUserHash: string): PasswordHasher {
  return {
    hash: (plain) => bcrypt.hash(plain, cost),
    verify: (plain, hash) => bcrypt.compare(plain, hash),
    unknownUserHash,
  };
}

/** What the portal runs with: cost 12 everywhere, tests of the cost included. */
export const bcryptPasswords = bcryptHasher(
  BCRYPT_COST,
  '$2b$12$eUO/m51ivDsvnCcW3157zemdC/jdeOK5OnzYnh8zWFweosjrQFWJi',
);

/**
 * bcrypt at a lower cost, for development and the tests' portals only (PORTAL_DEV_BCRYPT_COST;
 * config.ts refuses it in production): its unknown-user hash is made at that cost on the spot.
 */
export async function bcryptAtCost(cost: number): Promise<PasswordHasher> {
  if (cost === BCRYPT_COST) return bcryptPasswords;
  return bcryptHasher(cost, await bcrypt.hash(randomBytes(16).toString('hex'), cost));
}

export function hashPassword(plain: string): Promise<string> {
  return bcryptPasswords.hash(plain);
}
