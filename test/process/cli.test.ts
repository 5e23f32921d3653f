import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { childEnv, runNode } from '../helpers/processes.js';

const env = useTestEnvironment();
let tenant: TestTenant;
let processEnv: NodeJS.ProcessEnv;
let dataDir: string;

beforeAll(async () => {
  tenant = await env.addTenant({
    id: 41,
    sucursales: [{ id: 1 }, { id: 2, centralizado: true }],
    register: false,
  });
  dataDir = await mkdtemp(path.join(tmpdir(), 'portal-cli-'));
  processEnv = childEnv({
    DATABASE_URL: env.systemUrl,
    PORTAL_DATA_DIR: dataDir,
    QZ_PRIVATE_KEY_PATH: undefined,
    QZ_CERTIFICATE_PATH: undefined,
  });
});

describe('cli', () => {
  it('tenant add registers the tenant and enables the portal in its database, idempotently', async () => {
    const args = [
      'tenant',
      'add',
      '--id',
      '41',
      '--nombre',
      'Ferretería Sur',
      '--database-url',
      tenant.databaseUrl,
    ];
    const first = await runNode('src/cli.ts', args, processEnv);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain('customer/0001_portal_users');
    expect(await env.systemQuery('SELECT id, nombre, activo FROM tenants WHERE id = 41')).toEqual([
      { id: 41, nombre: 'Ferretería Sur', activo: true },
    ]);
    const tables = await tenant.query<{ schema: string }>(
      `SELECT table_schema AS schema FROM information_schema.tables
        WHERE table_name = 'portal_users' ORDER BY 1`,
    );
    expect(tables).toEqual([{ schema: 'public' }, { schema: 'suc0001' }]);

    const again = await runNode('src/cli.ts', args, processEnv);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain('up to date');
  }, 60_000);

  it('migrate migrates the system database and every registered tenant', async () => {
    const result = await runNode('src/cli.ts', ['migrate'], processEnv);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/system: up to date/);
    expect(result.output).toMatch(/tenant 41: up to date/);
  }, 60_000);

  it('migrate and tenant add write no print-agent keys (only npm start generates them)', async () => {
    // The tests above ran both commands with this data directory and no QZ_* set.
    await expect(stat(path.join(dataDir, 'qz'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('bad usage exits 2 with the usage text and changes nothing', async () => {
    const tenantsBefore = await env.systemQuery('SELECT * FROM tenants ORDER BY id');
    const result = await runNode(
      'src/cli.ts',
      ['tenant', 'add', '--id', 'x', '--nombre', 'N', '--database-url', tenant.databaseUrl],
      processEnv,
    );
    expect(result.code).toBe(2);
    expect(result.output).toContain('--id must be a positive integer');
    expect(result.output).toContain('Usage: npm run cli');
    const unknown = await runNode('src/cli.ts', ['frobnicate'], processEnv);
    expect(unknown.code).toBe(2);
    expect(await env.systemQuery('SELECT * FROM tenants ORDER BY id')).toEqual(tenantsBefore);
  }, 60_000);
});
