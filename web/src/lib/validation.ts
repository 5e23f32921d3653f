/**
 * The checks the API makes, repeated in the browser so a form says what is wrong before sending
 * (docs/api.md "Limits", docs/decisions.md #3 and 18). The API stays the authority. Pure, tested in
 * test/web/unit/validation.test.ts.
 */

export type IdentifierType = 'dni' | 'cuit';

export function digitsOf(value: string): string {
  return value.replace(/\D/g, '');
}

/** DNI: 7-8 digits (dots allowed when typed). CUIT: 11 digits, dashes optional. */
export function identifierError(type: IdentifierType, value: string): string | null {
  const trimmed = value.trim();
  if (trimmed === '') return type === 'dni' ? 'Ingresá tu DNI.' : 'Ingresá tu CUIT.';
  if (type === 'dni') {
    if (!/^[\d.]+$/.test(trimmed) || !/^\d{7,8}$/.test(digitsOf(trimmed)))
      return 'El DNI tiene 7 u 8 dígitos, sin letras.';
    return null;
  }
  if (!/^\d{2}-?\d{8}-?\d$/.test(trimmed))
    return 'El CUIT tiene 11 dígitos, con o sin guiones (20-12345678-3).';
  return null;
}

/** What the API receives: digits only for a DNI; a CUIT as typed (the API accepts dashes). */
export function normalizeIdentifier(type: IdentifierType, value: string): string {
  return type === 'dni' ? digitsOf(value) : value.trim();
}

export interface PolicyRule {
  id: 'length' | 'digit' | 'bytes';
  label: string;
  met: boolean;
}

/** docs/api.md's password policy (8+ characters, a digit) and docs/decisions.md #18 (72 bytes at most). */
export function passwordRules(password: string): PolicyRule[] {
  return [
    { id: 'length', label: 'Al menos 8 caracteres', met: [...password].length >= 8 },
    { id: 'digit', label: 'Al menos un número', met: /\d/.test(password) },
    {
      id: 'bytes',
      label: 'No más de 72 bytes (unos 72 caracteres sin acentos)',
      met: new TextEncoder().encode(password).length <= 72,
    },
  ];
}

export function passwordError(password: string): string | null {
  if (password === '') return 'Ingresá una contraseña.';
  const broken = passwordRules(password).find((rule) => !rule.met);
  return broken ? `La contraseña no cumple: ${broken.label.toLowerCase()}.` : null;
}

export function confirmationError(password: string, confirmation: string): string | null {
  if (confirmation === '') return 'Repetí la contraseña.';
  return password === confirmation ? null : 'Las contraseñas no coinciden.';
}

export function emailError(email: string): string | null {
  const trimmed = email.trim();
  if (trimmed === '') return 'Ingresá tu e-mail.';
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(trimmed) && trimmed.length <= 254
    ? null
    : 'El e-mail no es válido (por ejemplo, nombre@dominio.com).';
}

/** Optional phone: digits, spaces, +, -, parentheses; 6 to 20 characters. */
export function phoneError(phone: string): string | null {
  const trimmed = phone.trim();
  if (trimmed === '') return null;
  return /^[\d\s+()-]{6,20}$/.test(trimmed)
    ? null
    : 'El teléfono solo lleva números, espacios, +, guiones o paréntesis.';
}

export function codeError(code: string): string | null {
  return /^\d{6}$/.test(code.trim()) ? null : 'El código tiene 6 dígitos.';
}

/**
 * The reset code as typed or pasted, without the spaces, dots and dashes an e-mail or a phone
 * may put between its digits ("027 792", "027-792"): the field keeps what is left, and a code
 * that is still not 6 digits is refused by codeError.
 */
export function codeDigits(text: string): string {
  return text.replace(/[\s.\-‐-―]/g, '');
}
