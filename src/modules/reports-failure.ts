import { AppError } from '../platform/errors.js';
import { ReportsError } from '../platform/reports/client.js';

/**
 * What a failed render of a customer's own document (a statement, an invoice) answers: a busy
 * reports service is 503 SERVICE_UNAVAILABLE with its Retry-After (busy, not broken: other
 * customers' documents fill its queue for a few seconds), any other failure of it 502
 * INFORMES_ERROR naming the document; anything else is thrown as it is.
 */
export function reportsFailure(error: unknown, document: string): unknown {
  if (!(error instanceof ReportsError)) return error;
  if (error.retryAfterSeconds !== undefined) {
    return new AppError(
      'SERVICE_UNAVAILABLE',
      `El servicio de informes está ocupado; reintente en ${error.retryAfterSeconds} s`,
      { cause: error, headers: { 'retry-after': String(error.retryAfterSeconds) } },
    );
  }
  return new AppError('INFORMES_ERROR', `El servicio de informes no pudo generar ${document}`, {
    cause: error,
  });
}
