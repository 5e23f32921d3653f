import { describe, expect, it } from 'vitest';
import { lockWarning, triesLeft } from '../../../web/src/lib/lockout.js';
import { codeDigits, codeError } from '../../../web/src/lib/validation.js';

describe('the warning before the lock', () => {
  it('says nothing before the 3rd wrong password, then how many are left of the 5', () => {
    expect(lockWarning(0)).toBeNull();
    expect(lockWarning(2)).toBeNull();
    expect(lockWarning(3)).toBe(
      'Llevás 3 intentos fallidos seguidos: te quedan 2 antes de que la cuenta se bloquee por 15 minutos.',
    );
    expect(lockWarning(4)).toBe(
      'Llevás 4 intentos fallidos seguidos: te queda 1 antes de que la cuenta se bloquee por 15 minutos.',
    );
    expect(triesLeft(7)).toBe(0);
  });
});

describe('the reset code as pasted', () => {
  it('keeps its digits when an e-mail or a phone split them with a space, a dot or a dash', () => {
    for (const pasted of ['027 792', ' 027792 ', '027-792', '027.792', '027\u00a0792', '027–792'])
      expect(codeError(codeDigits(pasted)), pasted).toBeNull();
    expect(codeDigits('027 792')).toBe('027792');
    // What is still not six digits is refused, not cut to fit.
    expect(codeError(codeDigits('027 7921'))).toMatch(/6 dígitos/);
    expect(codeError(codeDigits('02779a'))).toMatch(/6 dígitos/);
  });
});
