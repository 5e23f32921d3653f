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
  /** How many documents render at once and wait (docs/receipts.md "Rendering in turn"). */
  readonly rendering: RenderingLimits;
}

export interface RenderingLimits {
  /** Statements drawn at once, each in a worker thread of its own. */
  readonly statementWorkers: number;
  /** Statements that may wait for a worker; past that, 503 at once. */
  readonly statementQueue: number;
  /** Receipts drawn at once, and coupons (each kind its own count). */
  readonly renderConcurrency: number;
  /** Receipts that may wait, and coupons; past that, 503 at once. */
  readonly renderQueue: number;
  /** The longest wait for a turn: half the API's REPORTS_TIMEOUT_MS, so a turn leaves time to draw. */
  readonly maxWaitMs: number;
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
    rendering: {
      statementWorkers: reader.integer('REPORTS_STATEMENT_WORKERS', 1, 1, 16),
      statementQueue: reader.integer('REPORTS_STATEMENT_QUEUE', 4, 0, 1_000),
      renderConcurrency: reader.integer('REPORTS_RENDER_CONCURRENCY', 4, 1, 64),
      renderQueue: reader.integer('REPORTS_RENDER_QUEUE', 200, 0, 10_000),
      // The API's own rule for the variable (src/config.ts), so a value it takes is taken here.
      maxWaitMs: Math.floor(reader.integer('REPORTS_TIMEOUT_MS', 10_000, 100, 120_000) / 2),
    },
  };
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return config;
}
