import { describe, expect, it } from 'vitest';
import {
  codeError,
  confirmationError,
  emailError,
  identifierError,
  normalizeIdentifier,
  passwordError,
  passwordRules,
  phoneError,
} from '../../../web/src/lib/validation.js';

describe('identifiers (docs/decisions.md #3)', () => {
  it('accepts a DNI of 7 or 8 digits, dots allowed', () => {
    expect(identifierError('dni', '20304050')).toBeNull();
    expect(identifierError('dni', '5123456')).toBeNull();
    expect(identifierError('dni', '20.304.050')).toBeNull();
    expect(normalizeIdentifier('dni', '20.304.050')).toBe('20304050');
  });

  it('refuses a DNI of the wrong length or with letters', () => {
    expect(identifierError('dni', '123456')).toMatch(/7 u 8/);
    expect(identifierError('dni', '123456789')).toMatch(/7 u 8/);
    expect(identifierError('dni', '2030405A')).toMatch(/7 u 8/);
    expect(identifierError('dni', ' ')).toBe('Ingresá tu DNI.');
  });

  it('accepts a CUIT of 11 digits with or without dashes', () => {
    expect(identifierError('cuit', '27-28765431-1')).toBeNull();
    expect(identifierError('cuit', '30712345671')).toBeNull();
    expect(identifierError('cuit', '3071234567')).toMatch(/11 dígitos/);
    expect(identifierError('cuit', '30-7123456-71')).toMatch(/11 dígitos/);
  });
});

describe('password policy (docs/api.md, docs/decisions.md #18)', () => {
  it('lists every rule with whether it is met', () => {
    expect(passwordRules('')).toEqual([
      expect.objectContaining({ id: 'length', met: false }),
      expect.objectContaining({ id: 'digit', met: false }),
      expect.objectContaining({ id: 'bytes', met: true }),
    ]);
    expect(passwordRules('Portal2026').every((rule) => rule.met)).toBe(true);
  });

  it('counts characters for the minimum and bytes for the maximum', () => {
    expect(passwordError('ñandú123')).toBeNull();
    expect(passwordError('abcdefgh')).toMatch(/número/);
    expect(passwordError('abc1')).toMatch(/8 caracteres/);
    expect(passwordError(`${'á'.repeat(36)}1`)).toMatch(/72 bytes/);
    expect(passwordError('')).toBe('Ingresá una contraseña.');
  });

  it('checks the confirmation', () => {
    expect(confirmationError('Portal2026', 'Portal2026')).toBeNull();
    expect(confirmationError('Portal2026', 'Portal2027')).toMatch(/no coinciden/);
    expect(confirmationError('Portal2026', '')).toMatch(/Repetí/);
  });
});

describe('other fields', () => {
  it('checks e-mail, phone and code', () => {
    expect(emailError('juan@example.com')).toBeNull();
    expect(emailError('juan@')).toMatch(/no es válido/);
    expect(emailError('')).toMatch(/Ingresá/);
    expect(phoneError('')).toBeNull();
    expect(phoneError('+54 11 4444-5555')).toBeNull();
    expect(phoneError('llamame')).toMatch(/números/);
    expect(codeError('123456')).toBeNull();
    expect(codeError('12345')).toMatch(/6 dígitos/);
  });
});
