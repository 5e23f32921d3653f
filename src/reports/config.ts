import {
  ConfigError,
  DEFAULT_REPORTS_URL,
  EnvReader,
  LOG_LEVELS,
  NODE_ENVS,
  type LogLevel,
} from '../config.js';

interface ReportsConfig {
  readonly isProduction: boolean;
  /** Where the service listens: the host and port of REPORTS_URL, the address the API calls. */
  readonly host: string;
  readonly port: number;
  readonly secret: string;
  /** The system registry, for reports that read tenant data (coupons); optional otherwise. */
  readonly databaseUrl: string | undefined;
  readonly logLevel: LogLevel;
}

/**
 * The reports service's configuration. Every variable it shares with the API is read by the
 * API's rules (src/config.ts): a value the API accepts, and hands to the child it starts, never
 * makes that child refuse to start.
 */
export function loadReportsConfig(
  env: Readonly<Record<string, string | undefined>>,
): ReportsConfig {
  const reader = new EnvReader(env);
  const isProduction = reader.oneOf('NODE_ENV', NODE_ENVS, 'development') === 'production';
  const url = new URL(reader.url('REPORTS_URL', ['http:']) ?? DEFAULT_REPORTS_URL);
  const config: ReportsConfig = {
    isProduction,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? 80 : Number(url.port),
    secret: reader.secret('REPORTS_SERVICE_SECRET', isProduction),
    databaseUrl: reader.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    logLevel: reader.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
  };
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return config;
}
