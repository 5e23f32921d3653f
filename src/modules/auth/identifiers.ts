import { AppError } from '../../platform/errors.js';

export type IdentifierType = 'dni' | 'cuit';

/**
 * docs/decisions.md #3: DNI is 7-8 digits; CUIT is 11 digits, with or without its dashes
 * (`20-12345678-3` or `20123456783`). The type must agree with the length. Answers the digits,
 * which is how identifiers are stored and compared (against `ordcon.ccui` digits).
 */
export function identifierDigits(identifier: string, type: IdentifierType): string {
  const value = identifier.trim();
  if (type === 'dni' && /^\d{7,8}$/.test(value)) return value;
  if (type === 'cuit' && /^\d{2}-?\d{8}-?\d$/.test(value)) return value.replaceAll('-', '');
  throw new AppError(
    'VALIDATION_ERROR',
    type === 'dni'
      ? 'identifier: un DNI tiene 7 u 8 dígitos'
      : 'identifier: un CUIT tiene 11 dígitos (XX-XXXXXXXX-X)',
  );
}
