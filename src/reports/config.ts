import { ConfigError, EnvReader } from '../config.js';

export interface ReportsConfig {
  readonly isProduction: boolean;
  /** Where the service listens: the host and port of REPORTS_URL, the address the API calls. */
  readonly host: string;
  readonly port: number;
  readonly secret: string;
  /** The system registry, for reports that read tenant data (coupons); optional otherwise. */
  readonly databaseUrl: string | undefined;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

const DEFAULT_URL = 'http://127.0.0.1:9999';

export function loadReportsConfig(
  env: Readonly<Record<string, string | undefined>>,
): ReportsConfig {
  const reader = new EnvReader(env);
  const isProduction = reader.raw('NODE_ENV') === 'production';
  const url = new URL(reader.url('REPORTS_URL', ['http:']) ?? DEFAULT_URL);
  const secret = reader.raw('REPORTS_SERVICE_SECRET') ?? '';
  if (Buffer.byteLength(secret) < (isProduction ? 32 : 1)) {
    reader.problems.push(
      isProduction
        ? 'REPORTS_SERVICE_SECRET is required in production and must be 32+ bytes'
        : 'REPORTS_SERVICE_SECRET is missing',
    );
  }
  const config: ReportsConfig = {
    isProduction,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? 80 : Number(url.port),
    secret,
    databaseUrl: reader.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    logLevel: reader.oneOf(
      'LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'info',
    ),
  };
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return config;
}
