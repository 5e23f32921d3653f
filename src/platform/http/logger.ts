import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import type { LogLevel } from '../log-level.js';

/** Query parameters whose values are secrets (the webhook URL carries the tenant's token). */
const SECRET_QUERY_PARAMS = /([?&](?:token|access_token|refresh_token|code|password)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1[REDACTED]');
}

/**
 * Never log secrets, passwords, codes or tokens: headers that carry them, body fields that
 * carry them wherever they are nested, and query strings (custom request serializer).
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-signature"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  '*.password',
  '*.password_confirmation',
  '*.current_password',
  '*.new_password',
  '*.code',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.password_hash',
  '*.secret',
];

interface SerializableRequest {
  method: string;
  url: string;
  host?: string;
  ip?: string;
  id?: string;
}

/**
 * Lines are written to stdout asynchronously: a busy instance hands the kernel one write per
 * batch instead of one per line, and the request's thread never waits on the pipe (measured
 * with `npm run bench -- deudas`, docs/benchmarks.md). What is still buffered is flushed on
 * exit, a SIGTERM's included; a SIGKILL loses at most the lines of the write in flight.
 */
export function loggerOptions(config: {
  logLevel: LogLevel;
}): LoggerOptions & { stream: DestinationStream } {
  return {
    stream: pino.destination({ dest: 1, sync: false }),
    level: config.logLevel,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    serializers: {
      req(request: SerializableRequest) {
        return {
          method: request.method,
          url: redactUrl(request.url),
          host: request.host,
          remoteAddress: request.ip,
        };
      },
    },
  };
}
