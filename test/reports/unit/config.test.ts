import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { loadReportsConfig } from '../../../src/reports/config.js';

/*
 * The reports service's configuration. The API starts it as a child with its own values, so
 * whatever the API accepts the child must accept too, or the child would crash-loop.
 */

const PRODUCTION_API = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://portal@db.internal:5432/portal_system',
  PORTAL_JWT_SECRET: 'p'.repeat(32),
  PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
};

function problemsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

describe('loadReportsConfig', () => {
  it('defaults: listens on 127.0.0.1:9999 (the API’s default REPORTS_URL), log level info, no database', () => {
    const config = loadReportsConfig({ REPORTS_SERVICE_SECRET: 'dev-reports' });
    expect(config).toEqual({
      isProduction: false,
      host: '127.0.0.1',
      port: 9999,
      secret: 'dev-reports',
      databaseUrl: undefined,
      logLevel: 'info',
      rendering: {
        statementWorkers: 1,
        statementQueue: 4,
        renderConcurrency: 4,
        renderQueue: 200,
        maxWaitMs: 5_000,
      },
    });
    const api = loadConfig({ PORTAL_JWT_SECRET: 'dev-secret', REPORTS_SERVICE_SECRET: 'x' });
    expect(api.reportsUrl).toBe(`http://${config.host}:${config.port}`);
  });

  it('listens where REPORTS_URL says, IPv6 included', () => {
    const env = { REPORTS_SERVICE_SECRET: 'dev-reports' };
    expect(loadReportsConfig({ ...env, REPORTS_URL: 'http://10.0.0.5:9000/' })).toMatchObject({
      host: '10.0.0.5',
      port: 9000,
    });
    expect(loadReportsConfig({ ...env, REPORTS_URL: 'http://[::1]:9999' })).toMatchObject({
      host: '::1',
      port: 9999,
    });
  });

  it('production refuses a secret shorter than 32 bytes, or none', () => {
    for (const secret of ['short', 'r'.repeat(31), undefined]) {
      expect(
        problemsOf(() =>
          loadReportsConfig({ NODE_ENV: 'production', REPORTS_SERVICE_SECRET: secret }),
        ),
      ).toEqual(['REPORTS_SERVICE_SECRET is required in production and must be 32+ bytes']);
    }
    const config = loadReportsConfig({
      NODE_ENV: 'production',
      REPORTS_SERVICE_SECRET: 'r'.repeat(32),
    });
    expect(config).toMatchObject({ isProduction: true, secret: 'r'.repeat(32) });
  });

  it('outside production only a missing secret is refused', () => {
    expect(problemsOf(() => loadReportsConfig({}))).toEqual([
      expect.stringMatching(/^REPORTS_SERVICE_SECRET is missing/),
    ]);
    expect(loadReportsConfig({ REPORTS_SERVICE_SECRET: 'short' }).secret).toBe('short');
  });

  it('takes the API’s log levels and refuses what the API refuses, naming the variable', () => {
    const env = { REPORTS_SERVICE_SECRET: 'dev-reports' };
    expect(loadReportsConfig({ ...env, LOG_LEVEL: 'silent' }).logLevel).toBe('silent');
    expect(problemsOf(() => loadReportsConfig({ ...env, LOG_LEVEL: 'loud' }))[0]).toMatch(
      /^LOG_LEVEL/,
    );
    expect(problemsOf(() => loadReportsConfig({ ...env, NODE_ENV: 'prod' }))[0]).toMatch(
      /^NODE_ENV/,
    );
    expect(problemsOf(() => loadReportsConfig({ ...env, REPORTS_URL: 'ftp://x' }))[0]).toMatch(
      /^REPORTS_URL/,
    );
  });

  it('reads the render bounds, and waits at most half of the API’s REPORTS_TIMEOUT_MS', () => {
    const env = { REPORTS_SERVICE_SECRET: 'dev-reports' };
    expect(
      loadReportsConfig({
        ...env,
        REPORTS_STATEMENT_WORKERS: '2',
        REPORTS_STATEMENT_QUEUE: '0',
        REPORTS_RENDER_CONCURRENCY: '8',
        REPORTS_RENDER_QUEUE: '50',
        REPORTS_TIMEOUT_MS: '3000',
      }).rendering,
    ).toEqual({
      statementWorkers: 2,
      statementQueue: 0,
      renderConcurrency: 8,
      renderQueue: 50,
      maxWaitMs: 1_500,
    });
    expect(
      problemsOf(() => loadReportsConfig({ ...env, REPORTS_STATEMENT_WORKERS: '0' }))[0],
    ).toMatch(/^REPORTS_STATEMENT_WORKERS/);
    // Whatever timeout the API takes, the child takes too; what it refuses, both refuse.
    for (const timeout of ['99', '100', '120000', '120001', 'soon']) {
      const both = { ...PRODUCTION_API, REPORTS_SERVICE_SECRET: 'r'.repeat(32) };
      const named = (problems: string[]) =>
        problems.filter((problem) => problem.startsWith('REPORTS_TIMEOUT_MS'));
      expect(named(problemsOf(() => loadConfig({ ...both, REPORTS_TIMEOUT_MS: timeout })))).toEqual(
        named(problemsOf(() => loadReportsConfig({ ...both, REPORTS_TIMEOUT_MS: timeout }))),
      );
    }
    expect(problemsOf(() => loadReportsConfig({ ...env, REPORTS_TIMEOUT_MS: '99' }))[0]).toMatch(
      /^REPORTS_TIMEOUT_MS/,
    );
  });

  it('accepts every REPORTS_SERVICE_SECRET the API accepts, and refuses the others', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('production', 'development'),
        fc.option(fc.string({ unit: 'grapheme', maxLength: 40 }), { nil: undefined }),
        (nodeEnv, secret) => {
          const env = { ...PRODUCTION_API, NODE_ENV: nodeEnv, REPORTS_SERVICE_SECRET: secret };
          const apiRefuses = problemsOf(() => loadConfig(env)).some((problem) =>
            problem.startsWith('REPORTS_SERVICE_SECRET'),
          );
          const reportsRefuses = problemsOf(() => loadReportsConfig(env)).some((problem) =>
            problem.startsWith('REPORTS_SERVICE_SECRET'),
          );
          expect(reportsRefuses).toBe(apiRefuses);
        },
      ),
    );
  });
});
