import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { access } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import bcrypt from 'bcrypt';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { databaseUrlFor, ensureDatabase } from '../../src/platform/db/admin.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import { childEnv, runNode, startNode } from '../helpers/processes.js';

const env = useTestEnvironment();

async function query<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe('npm start on embedded defaults', () => {
  it('starts PostgreSQL, seeds the demo tenant once, prints URLs and credentials, shuts down cleanly', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-start-'));
    const pgPort = await freePort();
    const reportsUrl = `http://127.0.0.1:${await freePort()}`;
    const processEnv = childEnv({
      PORTAL_DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      REPORTS_URL: reportsUrl,
      PORT: '0',
      LOG_LEVEL: 'warn',
    });
    let pgDir: string | undefined;
    try {
      const first = startNode('src/server.ts', [], processEnv);
      const [, url] = await first.waitFor(/Portal API\s+(http:\/\/\S+)/);
      // Run as root, the database may live outside the temp dir (see embedded-postgres.ts).
      [, pgDir] = await first.waitFor(/embedded PostgreSQL on \S+ \((.+)\)/, 1_000);
      expect(first.output()).toMatch(/API reference\s+http:\/\/\S+\/docs/);
      expect(first.output()).toContain('"identifier":"20304050"');
      expect(first.output()).toContain('"password":"Portal2026"');
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect((await fetch(`${url}/docs/json`)).status).toBe(200);
      // The reports service runs beside it, as its own process, and stops with it.
      expect(first.output()).toContain(`Reports service   ${reportsUrl}`);
      expect((await fetch(`${reportsUrl}/healthz`)).status).toBe(200);
      expect((await fetch(`${reportsUrl}/reports/portal-recibo`, { method: 'POST' })).status).toBe(
        401,
      );

      const secrets = JSON.parse(await readFile(path.join(dataDir, 'secrets.json'), 'utf8')) as {
        EMBEDDED_PG_PASSWORD: string;
        PORTAL_JWT_SECRET: string;
      };
      expect(secrets.PORTAL_JWT_SECRET.length).toBeGreaterThanOrEqual(32);
      const server = `postgres://postgres:${secrets.EMBEDDED_PG_PASSWORD}@127.0.0.1:${pgPort}/postgres`;
      const tenantUrl = databaseUrlFor(server, 'portal_demo');

      expect(
        await query(databaseUrlFor(server, 'portal_system'), 'SELECT id, activo FROM tenants'),
      ).toEqual([{ id: 1, activo: true }]);
      expect(
        await query(tenantUrl, 'SELECT id, clientes_centralizados FROM sucursales ORDER BY id'),
      ).toEqual([
        { id: 1, clientes_centralizados: false },
        { id: 2, clientes_centralizados: true },
      ]);
      const [demoUser] = await query<{ password_hash: string }>(
        tenantUrl,
        'SELECT password_hash FROM suc0001.portal_users WHERE cnro = 1001',
      );
      expect(demoUser?.password_hash).toMatch(/^\$2b\$12\$/);
      expect(await bcrypt.compare('Portal2026', demoUser?.password_hash ?? '')).toBe(true);
      await query(tenantUrl, `INSERT INTO public.ini VALUES ('test.marker', 'kept')`);

      // The business's console (docs/staff.md): a development key pair, and an operador token of
      // the demo tenant in the printed address, which the staff door takes.
      const [, consoleToken] = await first.waitFor(
        /Consola del comercio {2}http:\/\/\S+\/comercio\/#token=(\S+)/,
        1_000,
      );
      expect((await stat(path.join(dataDir, 'staff', 'private.pem'))).mode & 0o777).toBe(0o600);
      const summary = await fetch(`${url}/portal/comercio/resumen`, {
        headers: { authorization: `Bearer ${consoleToken}` },
      });
      expect(summary.status).toBe(200);
      const minted = await runNode(
        'src/cli.ts',
        ['staff', 'token', '--tenant', '1', '--rol', 'lectura', '--sub', 'contadora'],
        processEnv,
      );
      expect(minted.code, minted.output).toBe(0);
      const lectura = minted.output.trim().split('\n').at(-1) ?? '';
      const asLectura = await fetch(`${url}/portal/comercio/pagos`, {
        headers: { authorization: `Bearer ${lectura}` },
      });
      expect(asLectura.status).toBe(200);
      const action = await fetch(`${url}/portal/comercio/pagos/1/reintentar-recibo`, {
        method: 'POST',
        headers: { authorization: `Bearer ${lectura}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(action.status).toBe(403);
      const production = await runNode(
        'src/cli.ts',
        ['staff', 'token', '--tenant', '1', '--rol', 'operador'],
        { ...processEnv, NODE_ENV: 'production' },
      );
      expect(production.code).toBe(1);
      expect(production.output).toContain('production never mints');

      first.child.kill('SIGTERM');
      expect(await first.exited(), first.output()).toBe(0);
      expect(await exists(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
      await expect(fetch(`${reportsUrl}/healthz`)).rejects.toThrow();

      // A restart keeps the data and does not seed again.
      const second = startNode('src/server.ts', [], processEnv);
      const [, secondUrl] = await second.waitFor(/Portal API\s+(http:\/\/\S+)/);
      expect((await fetch(`${secondUrl}/readyz`)).status).toBe(200);
      expect(
        await query(tenantUrl, `SELECT valor FROM public.ini WHERE clave = 'test.marker'`),
      ).toEqual([{ valor: 'kept' }]);
      expect(await query(tenantUrl, 'SELECT count(*)::int AS n FROM suc0001.portal_users')).toEqual(
        [{ n: 1 }],
      );
      second.child.kill('SIGINT');
      expect(await second.exited(), second.output()).toBe(0);
      expect(await exists(path.join(pgDir ?? path.join(dataDir, 'pg'), 'postmaster.pid'))).toBe(
        false,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      if (pgDir?.startsWith('/var/tmp/portal-embedded-pg-')) {
        await rm(pgDir, { recursive: true, force: true });
      }
    }
  }, 120_000);
});

describe('npm start with DATABASE_URL', () => {
  it('in production: migrates the registry, serves with its reports service, exits 0 on SIGTERM', async () => {
    const name = `${new URL(env.systemUrl).pathname.slice(1)}_srv`;
    await ensureDatabase(env.serverUrl, name);
    const reportsUrl = `http://127.0.0.1:${await freePort()}`;
    const server = startNode(
      'src/server.ts',
      [],
      childEnv({
        NODE_ENV: 'production',
        DATABASE_URL: databaseUrlFor(env.serverUrl, name),
        PORTAL_JWT_SECRET: 'production-jwt-secret-of-at-least-32-bytes',
        PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
        REPORTS_SERVICE_SECRET: 'production-reports-secret-of-32-bytes-or-more',
        REPORTS_URL: reportsUrl,
        PORT: '0',
        LOG_LEVEL: 'warn',
        PORTAL_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'portal-srv-')),
      }),
    );
    const [, url] = await server.waitFor(/Portal API\s+(http:\/\/\S+)/);
    expect(server.output()).not.toContain('Demo login');
    expect(server.output()).toContain(`Reports service   ${reportsUrl} (child process`);
    // Health answers over plain HTTP for internal probes, HTTPS required or not.
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    expect((await fetch(`${reportsUrl}/healthz`)).status).toBe(200);
    expect(
      await query(databaseUrlFor(env.serverUrl, name), 'SELECT count(*)::int AS n FROM tenants'),
    ).toEqual([{ n: 0 }]);
    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
    await expect(fetch(`${reportsUrl}/healthz`)).rejects.toThrow();
  }, 60_000);

  it('production refuses to start without its required settings, naming them', async () => {
    const server = startNode('src/server.ts', [], childEnv({ NODE_ENV: 'production' }));
    expect(await server.exited()).toBe(1);
    for (const name of ['DATABASE_URL', 'PORTAL_JWT_SECRET', 'PORTAL_ALLOWED_ORIGIN']) {
      expect(server.output()).toContain(name);
    }
  }, 30_000);
});
