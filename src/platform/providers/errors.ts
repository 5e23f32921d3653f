/*
 * How a call to an outside provider fails (a payment gateway, a transfer provider): one error
 * for every failure, so each caller tells "the provider failed" from its own bugs.
 */

/** Thrown by any call to a provider (a gateway, a transfer provider) that failed: network, timeout, 4xx/5xx, unexpected body. */
export class GatewayError extends Error {
  constructor(
    message: string,
    readonly details: { status?: number; body?: unknown; cause?: unknown } = {},
  ) {
    super(message, { cause: details.cause });
    this.name = 'GatewayError';
  }
}

/** The provider answered that it has no such thing (404): a fact, not a failure to retry. */
export function isNotFound(error: unknown): boolean {
  return error instanceof GatewayError && error.details.status === 404;
}
