import { statusOf, type ErrorCode } from '../../contract/error-codes.js';

export { statusOf, type ErrorCode };

/**
 * The one error type services throw. `code` is a stable code of contract/error-codes.ts; the
 * error handler turns it into `{ success: false, error, code }`.
 */
export class AppError extends Error {
  readonly status: number;
  /** Extra response headers, e.g. Retry-After on ACCOUNT_LOCKED or RATE_LIMITED. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: {
      headers?: Record<string, string>;
      cause?: unknown;
      /** A route whose entry gives this code another status (contract/routes.ts `statuses`). */
      status?: number;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.status = options.status ?? statusOf(code);
    this.headers = options.headers ?? {};
  }
}

/** Keeps services flat: `assertThat(user, 'USER_NOT_FOUND', 'No such user')`. */
export function assertThat(
  condition: unknown,
  code: ErrorCode,
  message: string,
): asserts condition {
  if (!condition) throw new AppError(code, message);
}
