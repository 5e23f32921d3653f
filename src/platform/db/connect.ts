import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';

/**
 * Dates stay `YYYY-MM-DD` strings (docs/decisions.md #6): pg's default turns a DATE into a JS Date at
 * local midnight, which shifts the day in any time zone west of UTC. NUMERIC stays a string so
 * money never passes through a float; BIGINT (counts) becomes a number when it fits.
 */
const DATE_OID = 1082;
const INT8_OID = 20;
const TIMESTAMP_OID = 1114;

/**
 * `timestamp` columns (portal_payments.created_at) hold UTC: sessions run with TimeZone=UTC, and
 * Dates cross the wire as UTC both ways, so the process's own zone never shifts them.
 */
pg.defaults.parseInputDatesAsUTC = true;

function parseUtcTimestamp(value: string): Date | string {
  const date = new Date(`${value.replace(' ', 'T')}Z`);
  return Number.isNaN(date.getTime()) ? value : date;
}

const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === DATE_OID) return (value: string) => value;
    if (oid === TIMESTAMP_OID) return parseUtcTimestamp;
    if (oid === INT8_OID) {
      return (value: string) => {
        const parsed = Number(value);
        return Number.isSafeInteger(parsed) ? parsed : value;
      };
    }
    // pg types its own parsers as returning any; they return what pg always returned.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-return
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export interface PoolOptions {
  max: number;
  idleTimeoutMillis?: number;
  applicationName?: string;
  onError?: (error: Error) => void;
}

/** One connection's settings; the tenant pools open their clients with these directly. */
export function clientConfig(connectionString: string, applicationName: string): pg.ClientConfig {
  return {
    connectionString,
    connectionTimeoutMillis: 5_000,
    application_name: applicationName,
    options: '-c TimeZone=UTC',
    types: typeParsers,
  };
}

export function createPool(connectionString: string, options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    ...clientConfig(connectionString, options.applicationName ?? 'portal'),
    max: options.max,
    idleTimeoutMillis: options.idleTimeoutMillis ?? 30_000,
  });
  // A connection the server drops (restart, shutdown, idle kill) must never crash the process:
  // the pool replaces it, and a query that was running on it fails with its own error.
  pool.on('error', (error) => options.onError?.(error));
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export function createKysely<DB>(pool: pg.Pool): Kysely<DB> {
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
}
