import { AppError } from '../../platform/errors.js';

export const PASSWORD_MIN_CHARACTERS = 8;
/** bcrypt reads only the first 72 bytes; longer passwords are refused, not cut (docs/decisions.md #18). */
export const PASSWORD_MAX_BYTES = 72;

/** docs/api.md: at least 8 characters and at least one digit. Throws 422 VALIDATION_ERROR. */
export function assertPasswordPolicy(password: string, field = 'password'): void {
  if ([...password].length < PASSWORD_MIN_CHARACTERS) {
    throw new AppError('VALIDATION_ERROR', `${field}: debe tener al menos 8 caracteres`);
  }
  if (!/\d/.test(password)) {
    throw new AppError('VALIDATION_ERROR', `${field}: debe incluir al menos un número`);
  }
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
    throw new AppError('VALIDATION_ERROR', `${field}: no puede superar los 72 bytes`);
  }
}

/** A new password and its confirmation (register, reset): the policy, then equality. */
export function assertNewPassword(password: string, confirmation: string): void {
  assertPasswordPolicy(password);
  if (password !== confirmation) {
    throw new AppError('VALIDATION_ERROR', 'password_confirmation: no coincide con password');
  }
}
