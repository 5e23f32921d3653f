import type { TrustProxy } from './platform/http/trust-proxy.js';
import { LOG_LEVELS, type LogLevel } from './platform/log-level.js';
import { fromRoot } from './platform/paths.js';
import type { StaffKeySettings } from './platform/security/staff-keys.js';

export { LOG_LEVELS, type LogLevel, type TrustProxy };

/**
 * Every environment variable the portal reads, parsed and validated once at start-up.
 * Code receives `Config` values; nothing else reads `process.env`.
 * `.env.example` documents each variable; keep the two in step.
 */

export interface Config {
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly isProduction: boolean;
  readonly port: number;
  readonly host: string;
  /** System registry database; undefined means "start the embedded PostgreSQL". */
  readonly databaseUrl: string | undefined;
  readonly dataDir: string;
  readonly embeddedPgPort: number;
  readonly embeddedPgPassword: string;
  readonly jwtSecret: string;
  readonly allowedOrigins: readonly string[];
  readonly publicPrefix: '' | '/backend';
  readonly requireHttps: boolean;
  readonly trustProxy: TrustProxy;
  readonly tls: { readonly certPath: string; readonly keyPath: string } | undefined;
  readonly refreshTtlDays: number;
  /** How long the token a refresh replaced still gets its successor (0: never). */
  readonly refreshGraceSeconds: number;
  /** bcrypt cost of new hashes: 12 but in development and the tests' portals. */
  readonly devBcryptCost: number;
  readonly devRefuseUndeclaredCodes: boolean;
  readonly checkoutTtlMinutes: number;
  /** Public base URL for webhook URLs; undefined in production when unset (pagos/iniciar answers MISCONFIGURED). */
  readonly backendUrl: string | undefined;
  readonly reportsUrl: string;
  readonly reportsServiceSecret: string;
  /** Whole call to the reports service, PDF included; past it the API answers 502. */
  readonly reportsTimeoutMs: number;
  readonly redisUrl: string | undefined;
  /** Prefix of the portal's Redis keys and channel; the instances of one deployment share it. */
  readonly redisKeyPrefix: string;
  readonly qzPrivateKeyPath: string | undefined;
  readonly qzCertificatePath: string | undefined;
  readonly smtpUrl: string | undefined;
  /**
   * The staff door's keys (docs/staff.md): the administrative system's public keys, from a PEM
   * file or a JWKS address, and the issuer its tokens name. Undefined: the door is closed.
   * Development without either gets a key pair of its own under `dataDir` (server.ts).
   */
  readonly staffKeys: StaffKeySettings | undefined;
  /**
   * The operator's `PORTAL_ENABLE_<NAME>` switches, each true or false, by variable name. Unset
   * ones are absent: the piece that declares a switch gives its default (the sandbox gateway's,
   * PORTAL_ENABLE_SANDBOX, is declared in its folder), so this file names none of them.
   */
  readonly switches: ReadonlyMap<string, boolean>;
  /** Per outbound gateway call. */
  readonly gatewayTimeoutMs: number;
  /**
   * Origins (`scheme://host[:port]`, http allowed) a tenant's gateway URL may use besides each
   * gateway's official https hosts: sandboxes and local fakes. Empty by default.
   */
  readonly gatewayAllowedOrigins: readonly string[];
  /**
   * The built web client the API serves from its own origin (docs/web.md): a directory holding
   * index.html. `required` when PORTAL_WEB_DIR named it (a missing build stops the start);
   * development's default `web/dist` is served only when it was built. Undefined: none.
   */
  readonly webClient: { readonly dir: string; readonly required: boolean } | undefined;
  /** The API base URL the served config.json announces; '' or the public prefix (same origin) unless PORTAL_WEB_API_URL. */
  readonly webApiUrl: string;
  readonly logLevel: LogLevel;
  /** Prometheus listener (docs/metrics.md); undefined: none. 0 picks a free port (tests). */
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
  /**
   * Jobs one instance runs at once in each queue that writes receipts or sends e-mail (receipt,
   * payment e-mails, reset codes, e-mail-change notices, reminders).
   */
  readonly jobConcurrency: number;
  readonly tenantPools: {
    readonly maxPools: number;
    readonly maxConnections: number;
    /** What one tenant database may hold of `maxConnections`. */
    readonly connectionsPerPool: number;
    readonly idleSeconds: number;
    /** Hot reads as named prepared statements (off for a pooler that cannot keep them). */
    readonly preparedStatements: boolean;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

export const NODE_ENVS = ['development', 'production', 'test'] as const;
/** Where the API calls the reports service, and where that service listens (docs/api.md: port 9999). */
export const DEFAULT_REPORTS_URL = 'http://127.0.0.1:9999';
/** HS256 keys shorter than the hash output (32 bytes) are within reach of an offline guess. */
const MIN_SECRET_BYTES = 32;

/** Collects every problem instead of stopping at the first, so one boot shows them all. */
export class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  pattern(name: string, allowed: RegExp, fallback: string, expected: string): string {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!allowed.test(value)) {
      this.problems.push(`${name} must be ${expected} (got "${value}")`);
      return fallback;
    }
    return value;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return parsed;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes'].includes(value)) return true;
    if (['false', '0', 'no'].includes(value)) return false;
    this.problems.push(`${name} must be true or false (got "${value}")`);
    return fallback;
  }

  url(name: string, protocols: readonly string[]): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    try {
      const url = new URL(value);
      if (!protocols.includes(url.protocol)) throw new Error('protocol');
      return value.replace(/\/+$/, '');
    } catch {
      this.problems.push(
        `${name} must be a ${protocols.join(' or ')} URL (got "${redactUrl(value)}")`,
      );
      return undefined;
    }
  }

  /**
   * A shared secret: 32+ bytes in production. Outside production only its absence is a problem
   * (development generates one under .data/). The API and the reports service it starts read
   * REPORTS_SERVICE_SECRET through this one rule, so a secret one accepts the other accepts too.
   */
  secret(name: string, isProduction: boolean): string {
    const value = this.raw(name);
    if (isProduction && (value === undefined || Buffer.byteLength(value) < MIN_SECRET_BYTES)) {
      this.problems.push(
        `${name} is required in production and must be ${MIN_SECRET_BYTES}+ bytes`,
      );
    } else if (value === undefined) {
      this.problems.push(`${name} is missing (development generates one under .data/)`);
    }
    return value ?? '';
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const match = allowed.find((candidate) => candidate === value);
    if (match === undefined) {
      this.problems.push(`${name} must be one of ${allowed.map((a) => `"${a}"`).join(', ')}`);
      return fallback;
    }
    return match;
  }
}

/** Whether the process runs in production: several defaults depend on it. */
interface Mode {
  isProduction: boolean;
  nodeEnv: (typeof NODE_ENVS)[number];
}

/** One scalar setting: its variable, what it is for, and how it is read (default and check). */
interface ScalarSetting<T> {
  readonly env: string;
  readonly doc: string;
  read(reader: EnvReader, mode: Mode): T;
}

type Fallback<T> = T | ((mode: Mode) => T);
const fallbackOf = <T>(fallback: Fallback<T>, mode: Mode): T =>
  typeof fallback === 'function' ? (fallback as (mode: Mode) => T)(mode) : fallback;

function integer(
  env: string,
  fallback: number,
  range: [min: number, max: number],
  doc: string,
): ScalarSetting<number> {
  return { env, doc, read: (reader) => reader.integer(env, fallback, range[0], range[1]) };
}

function boolean(env: string, fallback: Fallback<boolean>, doc: string): ScalarSetting<boolean> {
  return { env, doc, read: (reader, mode) => reader.boolean(env, fallbackOf(fallback, mode)) };
}

function text(env: string, fallback: string, doc: string): ScalarSetting<string> {
  return { env, doc, read: (reader) => reader.string(env, fallback) };
}

function oneOf<T extends string>(
  env: string,
  values: readonly T[],
  fallback: T,
  doc: string,
): ScalarSetting<T> {
  return { env, doc, read: (reader) => reader.oneOf(env, values, fallback) };
}

function matching(
  env: string,
  pattern: RegExp,
  fallback: string,
  expected: string,
  doc: string,
): ScalarSetting<string> {
  return { env, doc, read: (reader) => reader.pattern(env, pattern, fallback, expected) };
}

/**
 * The scalar settings, declared once: each variable, its default and its check (docs/
 * configuration.md lists them). Lists, URLs, secrets and paired settings are parsed by their
 * own functions below; rules across settings are checked after everything is parsed.
 */
const SCALARS = {
  port: integer('PORT', 3000, [0, 65535], 'API listen port'),
  host: text('HOST', '127.0.0.1', 'API listen address'),
  dataDir: text('PORTAL_DATA_DIR', '.data', 'development data: embedded PostgreSQL, secrets'),
  embeddedPgPort: integer('EMBEDDED_PG_PORT', 54329, [1024, 65535], 'embedded PostgreSQL port'),
  embeddedPgPassword: text('EMBEDDED_PG_PASSWORD', 'portal-dev', 'embedded PostgreSQL password'),
  publicPrefix: oneOf('PORTAL_PUBLIC_PREFIX', ['', '/backend'] as const, '', 'public path prefix'),
  requireHttps: boolean(
    'PORTAL_REQUIRE_HTTPS',
    (mode) => mode.isProduction,
    'redirect plain HTTP to https',
  ),
  refreshTtlDays: integer('PORTAL_REFRESH_TTL_DAYS', 30, [1, 365], 'refresh-token lifetime'),
  refreshGraceSeconds: integer(
    'PORTAL_REFRESH_GRACE_SECONDS',
    30,
    [0, 300],
    'how long the token a refresh replaced still answers with its successor (0: off)',
  ),
  devBcryptCost: integer(
    'PORTAL_DEV_BCRYPT_COST',
    12,
    [4, 12],
    'bcrypt cost of new password hashes in development and tests (refused in production, always 12)',
  ),
  devRefuseUndeclaredCodes: boolean(
    'PORTAL_DEV_REFUSE_UNDECLARED_CODES',
    false,
    'answer 500 instead of an error code the route table does not give the route (tests; refused in production, which logs it)',
  ),
  checkoutTtlMinutes: integer(
    'PORTAL_CHECKOUT_TTL_MINUTES',
    30,
    [1, 7 * 24 * 60],
    'how long an issued checkout holds its debts',
  ),
  reportsTimeoutMs: integer('REPORTS_TIMEOUT_MS', 10_000, [100, 120_000], 'reports call timeout'),
  jobConcurrency: integer(
    'PORTAL_JOB_CONCURRENCY',
    8,
    [1, 64],
    'receipt and e-mail jobs one instance runs at once, per queue',
  ),
  redisKeyPrefix: matching(
    'REDIS_KEY_PREFIX',
    /^[A-Za-z0-9:._-]{1,64}$/,
    'portal-rl:',
    '1-64 letters, digits or :._-',
    "prefix of the deployment's Redis keys and channel",
  ),
  gatewayTimeoutMs: integer(
    'PORTAL_GATEWAY_TIMEOUT_MS',
    10_000,
    [100, 120_000],
    'per outbound gateway call',
  ),
  logLevel: oneOf('LOG_LEVEL', LOG_LEVELS, 'info', 'log level'),
  // Never the public address unless someone says so: metrics name routes and volumes.
  metricsHost: text('METRICS_HOST', '127.0.0.1', 'Prometheus listener address'),
  maxPools: integer('PORTAL_TENANT_POOLS_MAX', 20, [1, 10_000], 'tenant pools kept open'),
  // 40 + the system pool, the job queue and the reports service stay well inside PostgreSQL's
  // default max_connections of 100 (docs/scaling.md).
  maxConnections: integer(
    'PORTAL_TENANT_CONNECTIONS_MAX',
    40,
    [1, 100_000],
    'connections of all tenant pools together',
  ),
  connectionsPerPool: integer(
    'PORTAL_TENANT_POOL_SIZE',
    10,
    [1, 10_000],
    'connections one tenant database may hold',
  ),
  idleSeconds: integer(
    'PORTAL_TENANT_POOL_IDLE_SECONDS',
    300,
    [1, 86_400],
    'an unused tenant pool closes after',
  ),
  preparedStatements: boolean(
    'PORTAL_DB_PREPARED_STATEMENTS',
    true,
    'hot reads as named prepared statements',
  ),
} satisfies Record<string, ScalarSetting<unknown>>;

type Scalars = { [K in keyof typeof SCALARS]: ReturnType<(typeof SCALARS)[K]['read']> };

function readScalars(reader: EnvReader, mode: Mode): Scalars {
  const values: Partial<Record<keyof Scalars, unknown>> = {};
  for (const [key, setting] of Object.entries(SCALARS)) {
    values[key as keyof Scalars] = setting.read(reader, mode);
  }
  return values as Scalars;
}

/** Never echo credentials embedded in a URL into an error message. */
function redactUrl(value: string): string {
  return value.replace(/\/\/[^/@]*@/, '//***@');
}

function parseOrigins(reader: EnvReader, fallback: readonly string[]): readonly string[] {
  const value = reader.raw('PORTAL_ALLOWED_ORIGIN');
  if (value === undefined) return fallback;
  const origins: string[] = [];
  for (const candidate of value.split(',').map((part) => part.trim())) {
    if (candidate === '') continue;
    if (candidate === '*') {
      reader.problems.push('PORTAL_ALLOWED_ORIGIN must list origins, never "*"');
      continue;
    }
    try {
      const url = new URL(candidate);
      if (url.origin !== candidate.replace(/\/+$/, '')) throw new Error('not an origin');
      origins.push(url.origin);
    } catch {
      reader.problems.push(
        `PORTAL_ALLOWED_ORIGIN entries must be origins like https://portal.example.com (got "${candidate}")`,
      );
    }
  }
  return origins;
}

/**
 * PORTAL_GATEWAY_ALLOWED_ORIGINS: each entry an http(s) origin, kept in the form URL.origin gives
 * (lower case, no default port) so the gateway URL policy compares like with like.
 */
function parseGatewayOrigins(reader: EnvReader): readonly string[] {
  const name = 'PORTAL_GATEWAY_ALLOWED_ORIGINS';
  const origins: string[] = [];
  for (const candidate of (reader.raw(name) ?? '').split(',').map((part) => part.trim())) {
    if (candidate === '') continue;
    const origin = httpOrigin(candidate);
    if (origin === undefined) {
      reader.problems.push(
        `${name} entries must be origins like https://gateway.example.com or http://127.0.0.1:8080 (got "${redactUrl(candidate)}")`,
      );
      continue;
    }
    origins.push(origin);
  }
  return origins;
}

/** `scheme://host[:port]` of an http(s) URL that is nothing more than that; undefined otherwise. */
function httpOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    const bare =
      url.username === '' &&
      url.password === '' &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === '';
    return bare && (url.protocol === 'http:' || url.protocol === 'https:') ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** A switch an operator sets: `PORTAL_ENABLE_` and a name (config.switches). */
const SWITCH = /^PORTAL_ENABLE_[A-Z0-9_]+$/;

/** Every `PORTAL_ENABLE_<NAME>` that is set, read as true or false like any other boolean. */
function parseSwitches(reader: EnvReader, env: Env): ReadonlyMap<string, boolean> {
  const switches = new Map<string, boolean>();
  const names = Object.keys(env).filter((name) => SWITCH.test(name));
  for (const name of names.sort()) {
    if (reader.raw(name) !== undefined) switches.set(name, reader.boolean(name, false));
  }
  return switches;
}

/**
 * PORTAL_STAFF_JWT_PUBLIC_KEY_PATH or PORTAL_STAFF_JWKS_URL (one, never both) and
 * PORTAL_STAFF_JWT_ISSUER, required with either. A JWKS address is https, or an origin the
 * operator allowed in PORTAL_GATEWAY_ALLOWED_ORIGINS (a local key server), as a gateway's is.
 */
function parseStaffKeys(
  reader: EnvReader,
  allowedOrigins: readonly string[],
): StaffKeySettings | undefined {
  const path = reader.raw('PORTAL_STAFF_JWT_PUBLIC_KEY_PATH');
  const jwks = reader.raw('PORTAL_STAFF_JWKS_URL');
  const issuer = reader.raw('PORTAL_STAFF_JWT_ISSUER');
  if (path === undefined && jwks === undefined) {
    if (issuer !== undefined) {
      reader.problems.push(
        'PORTAL_STAFF_JWT_ISSUER needs PORTAL_STAFF_JWT_PUBLIC_KEY_PATH or PORTAL_STAFF_JWKS_URL',
      );
    }
    return undefined;
  }
  if (path !== undefined && jwks !== undefined) {
    reader.problems.push(
      'PORTAL_STAFF_JWT_PUBLIC_KEY_PATH and PORTAL_STAFF_JWKS_URL are two sources of the same keys: set one',
    );
    return undefined;
  }
  if (issuer === undefined || issuer.length > 200) {
    reader.problems.push(
      'PORTAL_STAFF_JWT_ISSUER (1-200 characters) is required with the staff keys: tokens must name it',
    );
    return undefined;
  }
  if (path !== undefined) return { kind: 'pem', path, issuer };
  const url = staffJwksUrl(jwks ?? '', allowedOrigins);
  if (url === undefined) {
    reader.problems.push(
      `PORTAL_STAFF_JWKS_URL must be an https address, or one on an origin of PORTAL_GATEWAY_ALLOWED_ORIGINS, without credentials (got "${redactUrl(jwks ?? '')}")`,
    );
    return undefined;
  }
  return { kind: 'jwks', url, issuer };
}

function staffJwksUrl(value: string, allowedOrigins: readonly string[]): string | undefined {
  try {
    const url = new URL(value);
    if (url.username !== '' || url.password !== '' || url.hash !== '') return undefined;
    if (url.protocol === 'https:' || allowedOrigins.includes(url.origin)) return url.href;
    return undefined;
  } catch {
    return undefined;
  }
}

function parseTrustProxy(reader: EnvReader, isProduction: boolean): TrustProxy {
  const value = reader.raw('TRUST_PROXY');
  if (value === undefined) return false;
  let parsed: TrustProxy;
  if (/^(true|false)$/i.test(value)) parsed = value.toLowerCase() === 'true';
  else if (/^\d+$/.test(value)) parsed = Number(value);
  // A comma-separated list of addresses/CIDRs, as Fastify's trustProxy accepts.
  else if (/^[0-9a-fA-F.:/,\s]+$/.test(value)) parsed = value;
  else {
    reader.problems.push(
      'TRUST_PROXY must be true, false, a hop count, or a list of proxy addresses',
    );
    return false;
  }
  // `true` (or a /0 range) believes every X-Forwarded-For hop: any client then names its own
  // address and walks past the per-IP limits on login, register, forgot and reset.
  const trustsEveryone =
    parsed === true ||
    (typeof parsed === 'string' && parsed.split(',').some((entry) => /\/0+$/.test(entry.trim())));
  if (isProduction && trustsEveryone) {
    reader.problems.push(
      `TRUST_PROXY=${value} is refused in production: it lets any client choose its IP with X-Forwarded-For. ` +
        'Give the number of proxies in front of the service (TRUST_PROXY=1 behind one reverse proxy) ' +
        'or their addresses/CIDRs (TRUST_PROXY=10.0.0.0/8)',
    );
    return false;
  }
  return parsed;
}

export function loadConfig(env: Env): Config {
  const reader = new EnvReader(env);
  const nodeEnv = reader.oneOf('NODE_ENV', NODE_ENVS, 'development');
  const isProduction = nodeEnv === 'production';
  const scalars = readScalars(reader, { nodeEnv, isProduction });
  const { port, host, publicPrefix } = scalars;
  const ownOrigin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const certPath = reader.raw('TLS_CERT_PATH');
  const keyPath = reader.raw('TLS_KEY_PATH');
  const webDir = reader.raw('PORTAL_WEB_DIR');
  const gatewayAllowedOrigins = parseGatewayOrigins(reader);

  const config: Config = {
    nodeEnv,
    isProduction,
    port,
    host,
    databaseUrl: reader.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: scalars.dataDir,
    embeddedPgPort: scalars.embeddedPgPort,
    embeddedPgPassword: scalars.embeddedPgPassword,
    jwtSecret: reader.secret('PORTAL_JWT_SECRET', isProduction),
    allowedOrigins: parseOrigins(
      reader,
      isProduction ? [] : [ownOrigin, `http://localhost:${port}`],
    ),
    publicPrefix,
    requireHttps: scalars.requireHttps,
    trustProxy: parseTrustProxy(reader, isProduction),
    tls: certPath !== undefined && keyPath !== undefined ? { certPath, keyPath } : undefined,
    refreshTtlDays: scalars.refreshTtlDays,
    refreshGraceSeconds: scalars.refreshGraceSeconds,
    devBcryptCost: scalars.devBcryptCost,
    devRefuseUndeclaredCodes: scalars.devRefuseUndeclaredCodes,
    checkoutTtlMinutes: scalars.checkoutTtlMinutes,
    backendUrl:
      reader.url('BACKEND_URL', ['http:', 'https:']) ?? (isProduction ? undefined : ownOrigin),
    reportsUrl: reader.url('REPORTS_URL', ['http:', 'https:']) ?? DEFAULT_REPORTS_URL,
    reportsServiceSecret: reader.secret('REPORTS_SERVICE_SECRET', isProduction),
    reportsTimeoutMs: scalars.reportsTimeoutMs,
    jobConcurrency: scalars.jobConcurrency,
    redisUrl: reader.url('REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: scalars.redisKeyPrefix,
    qzPrivateKeyPath: reader.raw('QZ_PRIVATE_KEY_PATH'),
    qzCertificatePath: reader.raw('QZ_CERTIFICATE_PATH'),
    smtpUrl: reader.url('SMTP_URL', ['smtp:', 'smtps:']),
    staffKeys: parseStaffKeys(reader, gatewayAllowedOrigins),
    switches: parseSwitches(reader, env),
    gatewayTimeoutMs: scalars.gatewayTimeoutMs,
    gatewayAllowedOrigins,
    // Production and tests serve a web client only when told where it is.
    webClient:
      webDir !== undefined
        ? { dir: webDir, required: true }
        : nodeEnv === 'development'
          ? { dir: fromRoot('web', 'dist'), required: false }
          : undefined,
    webApiUrl: reader.url('PORTAL_WEB_API_URL', ['http:', 'https:']) ?? publicPrefix,
    logLevel: scalars.logLevel,
    metricsPort:
      reader.raw('METRICS_PORT') === undefined
        ? undefined
        : reader.integer('METRICS_PORT', 0, 0, 65535),
    metricsHost: scalars.metricsHost,
    tenantPools: {
      maxPools: scalars.maxPools,
      maxConnections: scalars.maxConnections,
      connectionsPerPool: scalars.connectionsPerPool,
      idleSeconds: scalars.idleSeconds,
      preparedStatements: scalars.preparedStatements,
    },
  };

  reader.problems.push(...crossFieldProblems(config, env));
  if (reader.problems.length > 0) throw new ConfigError(reader.problems);
  return Object.freeze(config);
}

/** The rules across settings, checked once every one of them is parsed. */
function crossFieldProblems(config: Config, env: Env): string[] {
  const set = (name: string) => (env[name]?.trim() ?? '') !== '';
  const problems: string[] = [];
  if (config.isProduction && !set('DATABASE_URL')) {
    problems.push('DATABASE_URL is required in production');
  }
  if (config.isProduction && !set('PORTAL_ALLOWED_ORIGIN')) {
    problems.push('PORTAL_ALLOWED_ORIGIN is required in production');
  }
  if (config.isProduction && set('PORTAL_DEV_BCRYPT_COST')) {
    problems.push(
      'PORTAL_DEV_BCRYPT_COST is for development and tests: production hashes passwords at cost 12',
    );
  }
  if (config.isProduction && config.devRefuseUndeclaredCodes) {
    problems.push(
      'PORTAL_DEV_REFUSE_UNDECLARED_CODES is for tests: production logs an undeclared error code and answers it',
    );
  }
  if (set('TLS_CERT_PATH') !== set('TLS_KEY_PATH')) {
    problems.push('TLS_CERT_PATH and TLS_KEY_PATH must be set together');
  }
  if (set('QZ_PRIVATE_KEY_PATH') !== set('QZ_CERTIFICATE_PATH')) {
    problems.push('QZ_PRIVATE_KEY_PATH and QZ_CERTIFICATE_PATH must be set together');
  }
  if (
    config.metricsPort !== undefined &&
    config.metricsPort !== 0 &&
    config.metricsPort === config.port
  ) {
    problems.push('METRICS_PORT must differ from PORT: metrics never go on the public port');
  }
  if (config.tenantPools.maxConnections < config.tenantPools.maxPools) {
    problems.push('PORTAL_TENANT_CONNECTIONS_MAX must be at least PORTAL_TENANT_POOLS_MAX');
  }
  return problems;
}
