import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';

const DEV = { PORTAL_JWT_SECRET: 'dev-secret', REPORTS_SERVICE_SECRET: 'dev-reports' };
const PROD = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://portal@db.internal:5432/portal_system',
  PORTAL_JWT_SECRET: 'p'.repeat(32),
  PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
  REPORTS_SERVICE_SECRET: 'r'.repeat(32),
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

describe('config', () => {
  it('development defaults: port 3000, embedded database, own origin, derived BACKEND_URL', () => {
    const config = loadConfig(DEV);
    expect(config.port).toBe(3000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.allowedOrigins).toContain('http://127.0.0.1:3000');
    expect(config.backendUrl).toBe('http://127.0.0.1:3000');
    expect(config.reportsUrl).toBe('http://127.0.0.1:9999');
    expect(config.refreshTtlDays).toBe(30);
    expect(config.refreshGraceSeconds).toBe(30);
    expect(config.checkoutTtlMinutes).toBe(30);
    expect(config.publicPrefix).toBe('');
    expect(config.requireHttps).toBe(false);
    expect(config.trustProxy).toBe(false);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('a wrong value fails with a message naming the variable', () => {
    expect(problemsOf({ ...DEV, PORT: 'eighty' })).toEqual([
      expect.stringContaining('PORT must be an integer'),
    ]);
    expect(problemsOf({ ...DEV, PORTAL_REFRESH_TTL_DAYS: '0' })[0]).toMatch(
      /^PORTAL_REFRESH_TTL_DAYS/,
    );
    expect(problemsOf({ ...DEV, PORTAL_REFRESH_GRACE_SECONDS: '-1' })[0]).toMatch(
      /^PORTAL_REFRESH_GRACE_SECONDS/,
    );
    expect(problemsOf({ ...DEV, PORTAL_REFRESH_GRACE_SECONDS: '301' })[0]).toMatch(
      /^PORTAL_REFRESH_GRACE_SECONDS/,
    );
    expect(loadConfig({ ...DEV, PORTAL_REFRESH_GRACE_SECONDS: '0' }).refreshGraceSeconds).toBe(0);
    expect(problemsOf({ ...DEV, PORTAL_PUBLIC_PREFIX: '/api' })[0]).toMatch(
      /^PORTAL_PUBLIC_PREFIX/,
    );
    expect(problemsOf({ ...DEV, PORTAL_REQUIRE_HTTPS: 'maybe' })[0]).toMatch(
      /^PORTAL_REQUIRE_HTTPS/,
    );
    expect(problemsOf({ ...DEV, LOG_LEVEL: 'loud' })[0]).toMatch(/^LOG_LEVEL/);
    expect(problemsOf({ ...DEV, REDIS_URL: 'http://cache' })[0]).toMatch(/^REDIS_URL/);
    expect(problemsOf({ ...DEV, TLS_CERT_PATH: '/etc/cert.pem' })[0]).toMatch(/TLS_CERT_PATH/);
  });

  it('every problem is reported at once', () => {
    expect(problemsOf({ ...DEV, PORT: 'x', LOG_LEVEL: 'y', BACKEND_URL: 'ftp://x' })).toHaveLength(
      3,
    );
  });

  it('a database URL with a password is never echoed in the error', () => {
    const [problem] = problemsOf({ ...DEV, DATABASE_URL: 'mysql://user:hunter2@db/x' });
    expect(problem).toMatch(/^DATABASE_URL/);
    expect(problem).not.toContain('hunter2');
  });

  it('production refuses to start without DATABASE_URL, a 32-byte secret and an allowed origin', () => {
    expect(problemsOf(PROD)).toEqual([]);
    const problems = problemsOf({ NODE_ENV: 'production', REPORTS_SERVICE_SECRET: 'r'.repeat(32) });
    expect(problems.join('\n')).toMatch(/DATABASE_URL is required/);
    expect(problems.join('\n')).toMatch(/PORTAL_JWT_SECRET is required/);
    expect(problems.join('\n')).toMatch(/PORTAL_ALLOWED_ORIGIN is required/);
    expect(problemsOf({ ...PROD, PORTAL_JWT_SECRET: 'short' })[0]).toMatch(/32\+ bytes/);
  });

  it('PORTAL_DEV_BCRYPT_COST lowers the cost outside production only, 4 to 12; production refuses it, even at 12', () => {
    expect(loadConfig(DEV).devBcryptCost).toBe(12);
    expect(loadConfig({ ...DEV, PORTAL_DEV_BCRYPT_COST: '4' }).devBcryptCost).toBe(4);
    expect(problemsOf({ ...DEV, PORTAL_DEV_BCRYPT_COST: '3' })[0]).toMatch(
      /^PORTAL_DEV_BCRYPT_COST/,
    );
    expect(problemsOf(PROD)).toEqual([]);
    for (const cost of ['4', '12']) {
      expect(problemsOf({ ...PROD, PORTAL_DEV_BCRYPT_COST: cost })).toEqual([
        'PORTAL_DEV_BCRYPT_COST is for development and tests: production hashes passwords at cost 12',
      ]);
    }
  });

  it('production refuses a REPORTS_SERVICE_SECRET shorter than 32 bytes, as the reports service does', () => {
    expect(problemsOf({ ...PROD, REPORTS_SERVICE_SECRET: 'r'.repeat(31) })).toEqual([
      'REPORTS_SERVICE_SECRET is required in production and must be 32+ bytes',
    ]);
    const { REPORTS_SERVICE_SECRET: _omitted, ...withoutSecret } = PROD;
    expect(problemsOf(withoutSecret)).toEqual([
      'REPORTS_SERVICE_SECRET is required in production and must be 32+ bytes',
    ]);
    // Bytes, not characters: 16 two-byte characters are 32 bytes.
    expect(problemsOf({ ...PROD, REPORTS_SERVICE_SECRET: 'ñ'.repeat(16) })).toEqual([]);
    // Outside production any secret will do; only its absence is a problem.
    expect(loadConfig({ ...DEV, REPORTS_SERVICE_SECRET: 'short' }).reportsServiceSecret).toBe(
      'short',
    );
    expect(problemsOf({ PORTAL_JWT_SECRET: 'dev-secret' })).toEqual([
      expect.stringMatching(/^REPORTS_SERVICE_SECRET is missing/),
    ]);
  });

  it('production defaults: HTTPS required, no BACKEND_URL unless given', () => {
    const config = loadConfig(PROD);
    expect(config.requireHttps).toBe(true);
    expect(config.backendUrl).toBeUndefined();
    expect(loadConfig({ ...PROD, BACKEND_URL: 'https://api.example.com/' }).backendUrl).toBe(
      'https://api.example.com',
    );
  });

  it('PORTAL_ALLOWED_ORIGIN takes a comma-separated list of origins, never "*"', () => {
    const config = loadConfig({
      ...DEV,
      PORTAL_ALLOWED_ORIGIN: 'https://a.example.com, https://b.example.com',
    });
    expect(config.allowedOrigins).toEqual(['https://a.example.com', 'https://b.example.com']);
    expect(problemsOf({ ...DEV, PORTAL_ALLOWED_ORIGIN: '*' })[0]).toMatch(/never "\*"/);
    expect(problemsOf({ ...DEV, PORTAL_ALLOWED_ORIGIN: 'https://a.example.com/path' })[0]).toMatch(
      /^PORTAL_ALLOWED_ORIGIN/,
    );
  });

  it('PORTAL_GATEWAY_ALLOWED_ORIGINS: empty by default, a list of http(s) origins, nothing else', () => {
    expect(loadConfig(DEV).gatewayAllowedOrigins).toEqual([]);
    expect(loadConfig(PROD).gatewayAllowedOrigins).toEqual([]);
    const config = loadConfig({
      ...DEV,
      PORTAL_GATEWAY_ALLOWED_ORIGINS:
        'http://127.0.0.1:8080, HTTPS://Sandbox.Example.com:443/ ,http://[::1]:9000',
    });
    // Normalized as URL.origin writes them, which is what the gateway URL policy compares.
    expect(config.gatewayAllowedOrigins).toEqual([
      'http://127.0.0.1:8080',
      'https://sandbox.example.com',
      'http://[::1]:9000',
    ]);
    for (const entry of [
      '*',
      'sandbox.example.com',
      'https://sandbox.example.com/api',
      'https://sandbox.example.com?x=1',
      'ftp://sandbox.example.com',
      'file:///etc',
    ]) {
      expect(problemsOf({ ...DEV, PORTAL_GATEWAY_ALLOWED_ORIGINS: entry }), entry).toEqual([
        expect.stringMatching(/^PORTAL_GATEWAY_ALLOWED_ORIGINS entries must be origins/),
      ]);
    }
    const [problem] = problemsOf({
      ...DEV,
      PORTAL_GATEWAY_ALLOWED_ORIGINS: 'https://user:hunter2@sandbox.example.com',
    });
    expect(problem).toMatch(/^PORTAL_GATEWAY_ALLOWED_ORIGINS/);
    expect(problem).not.toContain('hunter2');
  });

  it('TRUST_PROXY is a boolean, a hop count or a list of addresses', () => {
    expect(loadConfig({ ...DEV, TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ ...DEV, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ ...DEV, TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy).toBe(
      '10.0.0.0/8,127.0.0.1',
    );
    expect(problemsOf({ ...DEV, TRUST_PROXY: 'everyone' })[0]).toMatch(/^TRUST_PROXY/);
  });

  it('production refuses TRUST_PROXY=true (and a /0 range), asking for a hop count or the proxy addresses', () => {
    for (const value of ['true', 'TRUE', '0.0.0.0/0', '10.0.0.1, ::/0']) {
      const problems = problemsOf({ ...PROD, TRUST_PROXY: value });
      expect(problems, value).toEqual([expect.stringMatching(/^TRUST_PROXY/)]);
      expect(problems[0]).toContain('TRUST_PROXY=1');
      expect(problems[0]).toContain('TRUST_PROXY=10.0.0.0/8');
    }
    // What the message asks for is accepted.
    expect(loadConfig({ ...PROD, TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ ...PROD, TRUST_PROXY: '10.0.0.0/8' }).trustProxy).toBe('10.0.0.0/8');
    expect(loadConfig({ ...PROD, TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    // Outside production `true` stays available (a local proxy during development).
    expect(loadConfig({ ...DEV, TRUST_PROXY: 'true' }).trustProxy).toBe(true);
  });
  it('METRICS_PORT: unset means no listener; 0..65535 on 127.0.0.1 unless METRICS_HOST says; never PORT', () => {
    expect(loadConfig(DEV).metricsPort).toBeUndefined();
    expect(loadConfig(DEV).metricsHost).toBe('127.0.0.1');
    const config = loadConfig({ ...DEV, METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' });
    expect(config.metricsPort).toBe(9464);
    expect(config.metricsHost).toBe('10.0.0.5');
    expect(loadConfig({ ...DEV, METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(problemsOf({ ...DEV, METRICS_PORT: '70000' })[0]).toMatch(/^METRICS_PORT must be/);
    expect(problemsOf({ ...DEV, METRICS_PORT: 'metrics' })[0]).toMatch(/^METRICS_PORT must be/);
    expect(problemsOf({ ...DEV, PORT: '8080', METRICS_PORT: '8080' })).toEqual([
      expect.stringContaining('METRICS_PORT must differ from PORT'),
    ]);
  });

  it('tenant connections: 40 in all, 10 per database, hot reads prepared; each can be changed', () => {
    expect(loadConfig(PROD).tenantPools).toEqual({
      maxPools: 20,
      maxConnections: 40,
      connectionsPerPool: 10,
      idleSeconds: 300,
      preparedStatements: true,
    });
    const tuned = loadConfig({
      ...PROD,
      PORTAL_TENANT_CONNECTIONS_MAX: '200',
      PORTAL_TENANT_POOL_SIZE: '4',
      PORTAL_DB_PREPARED_STATEMENTS: 'false',
    }).tenantPools;
    expect(tuned).toMatchObject({
      maxConnections: 200,
      connectionsPerPool: 4,
      preparedStatements: false,
    });
    expect(problemsOf({ ...PROD, PORTAL_TENANT_POOL_SIZE: '0' })[0]).toMatch(
      /^PORTAL_TENANT_POOL_SIZE must be/,
    );
  });

  it('REDIS_KEY_PREFIX: portal-rl: by default; letters, digits and :._- only', () => {
    expect(loadConfig(PROD).redisKeyPrefix).toBe('portal-rl:');
    expect(loadConfig({ ...PROD, REDIS_KEY_PREFIX: 'acme-prod:' }).redisKeyPrefix).toBe(
      'acme-prod:',
    );
    expect(problemsOf({ ...PROD, REDIS_KEY_PREFIX: 'has space' })[0]).toMatch(
      /^REDIS_KEY_PREFIX must be 1-64 letters, digits or :._-/,
    );
  });
});
