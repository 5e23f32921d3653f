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

/** Bytes gathered before a write, and the longest a line waits in a quiet minute. */
const BATCH_BYTES = 4096;
const FLUSH_EVERY_MS = 500;

let stdout: ReturnType<typeof pino.destination> | undefined;

/**
 * Lines go to stdout asynchronously, gathered into writes of about 4 KB: one write per line cost
 * more than the line itself (a thread-pool hop and a syscall each; about 100 µs of CPU a line
 * against 40 batched, measured on this machine, docs/benchmarks.md "Request logs"). A quiet
 * instance's lines still go out within half a second (pino's documented periodic flush). One
 * stream per process, whatever the apps built in it, so one buffer feeds file descriptor 1 in
 * order. What is buffered is flushed on exit, a SIGTERM's included; a SIGKILL loses at most the
 * last half second of lines.
 */
function stdoutStream(): DestinationStream {
  if (stdout) return stdout;
  const stream = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES });
  const flusher = setInterval(function flushQuietLines() {
    try {
      stream.flush();
    } catch {
      // Only a destroyed stream refuses a flush: nothing is left to write.
      clearInterval(flusher);
    }
  }, FLUSH_EVERY_MS);
  flusher.unref();
  stream.once('close', () => clearInterval(flusher));
  stdout = stream;
  return stream;
}

export function loggerOptions(config: {
  logLevel: LogLevel;
}): LoggerOptions & { stream: DestinationStream } {
  return {
    stream: stdoutStream(),
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
