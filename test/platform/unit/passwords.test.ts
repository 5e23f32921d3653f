import bcrypt from 'bcrypt';
import { describe, expect, it } from 'vitest';
import {
  BCRYPT_COST,
  bcryptAtCost,
  bcryptPasswords,
} from '../../../src/platform/security/passwords.js';
import { quickPasswords } from '../../helpers/passwords.js';

// docs/decisions.md #8: an unknown user costs the same single comparison as a wrong password, so
// the hash login compares against for an unknown user must be at the cost the hasher writes.
describe('password hashers', () => {
  it('the portal hashes at cost 12 and its unknown-user hash is cost 12 too', async () => {
    expect(BCRYPT_COST).toBe(12);
    expect(bcrypt.getRounds(await bcryptPasswords.hash('Secreta123'))).toBe(12);
    expect(bcrypt.getRounds(bcryptPasswords.unknownUserHash)).toBe(12);
  });

  it('the tests’ quick hasher keeps the same pairing at its own cost', async () => {
    const hash = await quickPasswords.hash('Secreta123');
    expect(bcrypt.getRounds(hash)).toBe(bcrypt.getRounds(quickPasswords.unknownUserHash));
    expect(await quickPasswords.verify('Secreta123', hash)).toBe(true);
    expect(await quickPasswords.verify('Secreta124', hash)).toBe(false);
  });

  it('a development cost pairs its unknown-user hash with it; 12 is the portal’s own hasher', async () => {
    const quick = await bcryptAtCost(4);
    expect(bcrypt.getRounds(await quick.hash('Secreta123'))).toBe(4);
    expect(bcrypt.getRounds(quick.unknownUserHash)).toBe(4);
    expect(await bcryptAtCost(12)).toBe(bcryptPasswords);
  });

  it('no password verifies against an unknown-user hash', async () => {
    for (const hasher of [bcryptPasswords, quickPasswords]) {
      expect(await hasher.verify('', hasher.unknownUserHash)).toBe(false);
      expect(await hasher.verify('Secreta123', hasher.unknownUserHash)).toBe(false);
    }
  });
});
