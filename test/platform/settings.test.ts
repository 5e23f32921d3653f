import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { GATEWAYS } from '../../src/modules/payments/gateways/table.js';
import { createSettingsReader } from '../../src/platform/settings/reader.js';
import { TRANSFER_PROVIDERS } from '../../src/modules/transfers/providers/table.js';
import {
  GATEWAY_SETTINGS,
  SETTINGS,
  TRANSFER_PROVIDER_SETTINGS,
} from '../../src/platform/settings/registry.js';
import { createTenantPools } from '../../src/platform/tenancy/pools.js';
import { fakeClock } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';

/*
 * docs/erp.md "Tenant settings": the registry is the table, and its reader reads `ini` in one
 * statement, fresh or at most a minute old, logging a bad value once per tenant and key.
 */

const root = path.resolve(import.meta.dirname, '../..');

/** The table's rows: each key (a row may list several: `portal.marca.color`, `.telefono`) and its default. */
async function documentedSettings(): Promise<Map<string, string>> {
  const text = await readFile(path.join(root, 'docs/erp.md'), 'utf8');
  const start = text.indexOf('## Tenant settings (`ini`)');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split(' | ').map((cell) => cell.replace(/^\|\s*|\s*\|$/g, '').trim());
    const [keys, fallback] = cells;
    if (!keys?.startsWith('`') || fallback === undefined) continue;
    let base = '';
    for (const [, key] of keys.matchAll(/`([^`]+)`/g)) {
      if (!key) continue;
      const full = key.startsWith('.') ? `${base}${key}` : key;
      base = full.slice(0, full.lastIndexOf('.'));
      rows.set(full, fallback);
    }
  }
  return rows;
}

describe('the settings registry and docs/erp.md', () => {
  it('name the same keys with the same defaults; the gateways’ and providers’ keys are their definitions’', async () => {
    const documented = await documentedSettings();
    const registered = new Map(
      Object.values(SETTINGS).map((setting) => [setting.key, setting.fallback]),
    );
    const families = [
      {
        prefix: GATEWAY_SETTINGS.prefix,
        definitions: [...GATEWAYS.values()],
      },
      {
        prefix: TRANSFER_PROVIDER_SETTINGS.prefix,
        definitions: [...TRANSFER_PROVIDERS.values()],
      },
    ];
    const familyKeys = new Set<string>();
    for (const { prefix, definitions } of families) {
      const ids = definitions.map((definition) => definition.id);
      const defined = definitions.flatMap((definition) =>
        definition.settings.map((name) => `${prefix}${definition.id}.${name}`),
      );
      const listed = [...documented.keys()].filter((key) =>
        ids.some((id) => key.startsWith(`${prefix}${id}.`)),
      );
      expect(listed.sort()).toEqual([...defined].sort());
      for (const key of listed) familyKeys.add(key);
    }
    const documentedOthers = new Map([...documented].filter(([key]) => !familyKeys.has(key)));
    expect(documentedOthers).toEqual(registered);
    for (const setting of Object.values(SETTINGS)) expect(setting.meaning).not.toBe('');
  });
});

const env = useTestEnvironment();
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await env.addTenant({ id: 31, sucursales: [{ id: 1 }] });
});

async function setIni(values: Record<string, string | null>): Promise<void> {
  for (const [clave, valor] of Object.entries(values)) {
    await tenant.query(
      `INSERT INTO public.ini (clave, valor) VALUES ($1, $2)
       ON CONFLICT (clave) DO UPDATE SET valor = excluded.valor`,
      [clave, valor],
    );
  }
}

describe('the settings reader', () => {
  const GROUP = {
    hour: SETTINGS.reminderHour,
    minimum: SETTINGS.partialMinimum,
    zone: SETTINGS.timeZone,
    gateways: GATEWAY_SETTINGS,
  };

  it('reads a group in one statement: values parsed, blanks absent, the family without its prefix; cached reads are at most a minute old, fresh ones are now', async () => {
    await setIni({
      'portal.avisos.hora': '7',
      'portal.pagos.monto_minimo': '  ',
      'sistema.zona_horaria': 'America/Argentina/Cordoba',
      'portal.gateway.sandbox.webhook_secret': ' s3 ',
      'portal.gatewayx.other': 'not of the family',
    });
    const clock = fakeClock();
    const pools = createTenantPools({ maxPools: 1, maxConnections: 1, idleSeconds: 60 });
    const reader = createSettingsReader({ clock });
    const context = { tenantId: tenant.id, db: pools.get(tenant.databaseUrl) };
    try {
      const first = await reader.read(context, GROUP, 'cached');
      expect(first).toEqual({
        hour: 7,
        minimum: undefined,
        zone: 'America/Argentina/Cordoba',
        gateways: new Map([['sandbox.webhook_secret', 's3']]),
      });
      await setIni({ 'portal.avisos.hora': '8' });
      expect((await reader.read(context, GROUP, 'cached')).hour).toBe(7);
      expect((await reader.read(context, GROUP, 'fresh')).hour).toBe(8);
      await setIni({ 'portal.avisos.hora': '10' });
      clock.advance(59_000);
      expect((await reader.read(context, GROUP, 'cached')).hour).toBe(8);
      clock.advance(2_000);
      expect((await reader.read(context, GROUP, 'cached')).hour).toBe(10);
    } finally {
      await pools.close();
    }
  });

  it("a group read only fresh (the gateways' secrets, at each notification) is not kept: a later cached read goes to the ERP", async () => {
    await setIni({ 'portal.avisos.hora': '7' });
    const pools = createTenantPools({ maxPools: 1, maxConnections: 1, idleSeconds: 60 });
    const reader = createSettingsReader({ clock: fakeClock() });
    const context = { tenantId: tenant.id, db: pools.get(tenant.databaseUrl) };
    try {
      expect((await reader.read(context, GROUP, 'fresh')).hour).toBe(7);
      await setIni({ 'portal.avisos.hora': '8' });
      expect((await reader.read(context, GROUP, 'cached')).hour).toBe(8);
    } finally {
      await pools.close();
    }
  });

  it('logs a bad value once per tenant and key, quoting it only where the key allows', async () => {
    await setIni({
      'portal.avisos.hora': '25',
      'portal.pagos.monto_minimo': 'mil pesos',
      'sistema.zona_horaria': 'Marte/Olympus',
    });
    const warnings: object[] = [];
    const pools = createTenantPools({ maxPools: 1, maxConnections: 1, idleSeconds: 60 });
    const reader = createSettingsReader({
      clock: fakeClock(),
      log: { warn: (fields, message) => warnings.push({ ...fields, message }) },
    });
    const context = { tenantId: tenant.id, db: pools.get(tenant.databaseUrl) };
    try {
      for (let round = 0; round < 3; round += 1) {
        expect(await reader.read(context, GROUP, 'fresh')).toMatchObject({
          hour: 9,
          minimum: undefined,
          zone: 'America/Argentina/Buenos_Aires',
        });
      }
      const message = 'bad setting in ini; using its default';
      expect(warnings).toEqual([
        { tenantId: tenant.id, key: 'portal.avisos.hora', value: '25', message },
        { tenantId: tenant.id, key: 'portal.pagos.monto_minimo', message },
        { tenantId: tenant.id, key: 'sistema.zona_horaria', value: 'Marte/Olympus', message },
      ]);
    } finally {
      await pools.close();
      await setIni({ 'portal.avisos.hora': null, 'portal.pagos.monto_minimo': null });
    }
  });
});
