import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../contract/error-codes.js';
import {
  errorMessage,
  minutesText,
  parseRetryAfter,
  paymentIdInMessage,
} from '../../../web/src/api/errors.js';

/** Every code the API answers (contract/error-codes.ts), and the client's own. */
const CODES = [...Object.keys(ERROR_STATUS), 'NETWORK_ERROR', 'BAD_RESPONSE'];

describe('error messages', () => {
  it('has a Spanish message of its own for every code', () => {
    const unknown = errorMessage({ status: 418, code: 'SOMETHING_NEW' });
    for (const code of CODES) {
      const message = errorMessage({ status: 400, code, serverMessage: 'Detalle.' });
      expect(message, code).not.toBe(unknown);
      expect(message, code).toMatch(/^[A-ZÁÉÍÓÚÑ¿]/);
      expect(message, code).not.toMatch(/undefined|null/);
    }
  });

  it('says for how many minutes an account is locked, from Retry-After', () => {
    expect(errorMessage({ status: 403, code: 'ACCOUNT_LOCKED', retryAfterSeconds: 900 })).toMatch(
      /en 15 minutos/,
    );
    expect(errorMessage({ status: 403, code: 'ACCOUNT_LOCKED', retryAfterSeconds: 61 })).toMatch(
      /en 2 minutos/,
    );
    expect(errorMessage({ status: 403, code: 'ACCOUNT_LOCKED', retryAfterSeconds: 5 })).toMatch(
      /en 1 minuto /,
    );
    expect(errorMessage({ status: 403, code: 'ACCOUNT_LOCKED' })).toMatch(/15 minutos/);
    expect(minutesText(0)).toBe('1 minuto');
  });

  it('says how long to wait when rate limited', () => {
    expect(errorMessage({ status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 30 })).toMatch(
      /Esperá 30 segundos/,
    );
    expect(errorMessage({ status: 429, code: 'RATE_LIMITED', retryAfterSeconds: 120 })).toMatch(
      /Esperá 2 minutos/,
    );
    expect(errorMessage({ status: 429, code: 'RATE_LIMITED' })).toMatch(/Esperá un momento/);
  });

  it('names the payment in progress', () => {
    const serverMessage =
      'Hay un pago en curso (payment_id 42) para alguna de esas facturas; cancélelo o espere';
    expect(paymentIdInMessage(serverMessage)).toBe(42);
    expect(errorMessage({ status: 409, code: 'PAYMENT_IN_PROGRESS', serverMessage })).toMatch(
      /pago n\.º 42/,
    );
    expect(paymentIdInMessage(undefined)).toBeNull();
  });

  it('says a period with too many movements needs a shorter one, in its own words (the API says "elija")', () => {
    const message = errorMessage({
      status: 422,
      code: 'PERIODO_DEMASIADO_EXTENSO',
      serverMessage: 'El período tiene más de 20.000 movimientos: elija uno más corto',
    });
    expect(message).toMatch(/Elegí un período más corto\.$/);
    expect(message).not.toMatch(/elija/);
  });

  it('keeps the detail of a validation error and hides that of a 5xx', () => {
    expect(
      errorMessage({ status: 422, code: 'VALIDATION_ERROR', serverMessage: 'e-mail inválido' }),
    ).toBe('Revisá los datos: e-mail inválido');
    expect(errorMessage({ status: 500, code: 'WHATEVER', serverMessage: 'stack' })).toBe(
      errorMessage({ status: 500, code: 'INTERNAL_ERROR' }),
    );
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(parseRetryAfter('120')).toBe(120);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('pronto')).toBeNull();
    const now = Date.parse('2026-05-09T12:00:00Z');
    expect(parseRetryAfter('Sat, 09 May 2026 12:05:00 GMT', now)).toBe(300);
  });

  it('FACTURA_NO_DISPONIBLE keeps the API’s words, which say which of its two reasons it is', () => {
    const why =
      'Este comprobante todavía no tiene CAE de ARCA: su PDF estará disponible cuando se autorice';
    expect(errorMessage({ status: 422, code: 'FACTURA_NO_DISPONIBLE', serverMessage: why })).toBe(
      `${why}.`,
    );
    expect(errorMessage({ status: 422, code: 'FACTURA_NO_DISPONIBLE' })).toMatch(
      /todavía no está disponible/,
    );
  });
});
