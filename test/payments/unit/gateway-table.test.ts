import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GATEWAY_IDS,
  GATEWAYS,
  gatewayLabel,
} from '../../../src/modules/payments/gateways/table.js';

/*
 * A gateway's facts live in one definition (its own file) and one line of the table
 * (src/modules/payments/gateways/table.ts); everything else reads them from there.
 */

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..', '..');
const GATEWAYS_DIR = join('src', 'modules', 'payments', 'gateways');
/** The demo tenant's data (it was db/seed/): its settings name its gateway as any tenant's do. */
const DEMO_SEED_DIR = join('src', 'dev', 'seed');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && /\.(ts|tsx)$/.test(entry.name))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

describe('the gateway table', () => {
  it('names no gateway id outside the gateways folder: server, web client or contract', async () => {
    const files = [
      ...(await sourceFiles('src')).filter(
        (file) => !file.startsWith(GATEWAYS_DIR) && !file.startsWith(DEMO_SEED_DIR),
      ),
      ...(await sourceFiles(join('web', 'src'))),
      ...(await sourceFiles('contract')),
    ];
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) {
      const text = await readFile(join(ROOT, file), 'utf8');
      for (const id of GATEWAY_IDS) {
        if (new RegExp(`['"\`]${id}['"\`]`).test(text)) found.push(`${file}: ${id}`);
      }
    }
    expect(found).toEqual([]);
  });

  it("keeps each gateway in its folder: gateways/ imports none of payments' other folders, and only the table enters a gateway's folder", async () => {
    const payments = join('src', 'modules', 'payments');
    const folders = new Set(
      (await readdir(join(ROOT, GATEWAYS_DIR), { withFileTypes: true }))
        .filter((entry) => entry.isDirectory())
        .map((entry) => join(GATEWAYS_DIR, entry.name)),
    );
    expect([...folders].map((folder) => relative(GATEWAYS_DIR, folder)).sort()).toEqual(
      [...GATEWAY_IDS].sort(),
    );
    const crossings: string[] = [];
    for (const file of await sourceFiles('src')) {
      const text = await readFile(join(ROOT, file), 'utf8');
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']*)'/g)) {
        const target = relative(ROOT, join(ROOT, file, '..', specifier ?? ''));
        const ownFolder = [...folders].find((folder) => file.startsWith(`${folder}/`));
        const targetFolder = [...folders].find((folder) => target.startsWith(`${folder}/`));
        // Deleting a gateway's folder and its table line must leave a portal that compiles.
        if (targetFolder !== undefined && targetFolder !== ownFolder) {
          const fromTable = file === join(GATEWAYS_DIR, 'table.ts');
          if (!fromTable) crossings.push(`${file} -> ${target}`);
        }
        // gateways/ stands below the rest of payments, so a provider kind can leave it whole.
        if (
          file.startsWith(`${GATEWAYS_DIR}/`) &&
          target.startsWith(`${payments}/`) &&
          !target.startsWith(`${GATEWAYS_DIR}/`)
        ) {
          crossings.push(`${file} -> ${target}`);
        }
      }
    }
    expect(crossings).toEqual([]);
  });

  it("documents every gateway's settings keys in docs/erp.md", async () => {
    const erp = await readFile(join(ROOT, 'docs', 'erp.md'), 'utf8');
    const missing = [...GATEWAYS.values()].flatMap((definition) =>
      definition.settings
        .map((key) => `portal.gateway.${definition.id}.${key}`)
        .filter((setting) => !erp.includes(setting)),
    );
    expect(missing).toEqual([]);
  });

  it('labels each gateway for customers, and an unknown one by its id', () => {
    expect(GATEWAY_IDS.map(gatewayLabel)).toEqual([
      'Mercado Pago',
      'Ualá Bis',
      'Pasarela de prueba (sandbox)',
    ]);
    expect(gatewayLabel('modo')).toBe('modo');
    expect(gatewayLabel(null)).toBe('');
  });
});

// --- A fourth gateway -------------------------------------------------------------------------

/**
 * A gateway that exists only in this test: its own folder with one file, as a new gateway would
 * have, bringing its own notifications (a body naming `fakepay_event`) that no other gateway has.
 */
const FAKEPAY = `import { defineGateway } from '../definition.js';
import { isRecord } from '../../../../platform/providers/http.js';
import { requiredSetting, settingsOk } from '../settings-check.js';
import type { GatewayAdapter, NotificationInput } from '../types.js';

const ID = 'fakepay';

function unsupported(): never {
  throw new Error('not in this test');
}

export const fakePayGateway = defineGateway({
  id: ID,
  label: 'FakePay',
  notifications: {
    recognises: (input: NotificationInput) =>
      isRecord(input.body) && typeof input.body.fakepay_event === 'string',
    signed: false,
  },
  settings: ['api_key'],
  officialHosts: { base_url: ['api.fakepay.example'] },
  parseSettings: (values) => {
    const key = requiredSetting(values, ID, 'api_key');
    return 'problem' in key ? { ok: false, problem: key.problem } : settingsOk({ key: key.value });
  },
  create: (): GatewayAdapter => ({
    id: ID,
    createCheckout: unsupported,
    parseNotification: unsupported,
    fetchPayment: unsupported,
    findPaymentByReference: unsupported,
    cancel: unsupported,
    refund: unsupported,
  }),
});
`;

describe('adding a fourth gateway', () => {
  let copy: string;

  beforeAll(async () => {
    // The source tree copied, the new gateway's folder added and one line of the table changed:
    // nothing else is touched, and the rest of the payments module must know the gateway.
    copy = await mkdtemp(join(tmpdir(), 'portal-fourth-gateway-'));
    await cp(join(ROOT, 'src'), join(copy, 'src'), { recursive: true });
    await cp(join(ROOT, 'contract'), join(copy, 'contract'), { recursive: true });
    await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
    await symlink(join(ROOT, 'package.json'), join(copy, 'package.json'));
    const gateways = join(copy, GATEWAYS_DIR);
    await mkdir(join(gateways, 'fakepay'));
    await writeFile(join(gateways, 'fakepay', 'definition.ts'), FAKEPAY);
    const table = await readFile(join(gateways, 'table.ts'), 'utf8');
    const line =
      'const DEFINITIONS = [mercadoPagoGateway, ualaBisGateway, sandboxGateway] as const;';
    expect(table).toContain(line);
    await writeFile(
      join(gateways, 'table.ts'),
      table.replace(
        line,
        `import { fakePayGateway } from './fakepay/definition.js';\nconst DEFINITIONS = [mercadoPagoGateway, ualaBisGateway, sandboxGateway, fakePayGateway] as const;`,
      ),
    );
  });

  afterAll(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
  });

  it('is read from the tenant settings, judges its notifications, builds its adapter and has its label', async () => {
    // Run inside the copy, as the portal would load it.
    const script = join(copy, 'check-fakepay.ts');
    await writeFile(script, CHECK);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script], {
      cwd: copy,
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toEqual({
      gateway: 'fakepay',
      apiKey: 'k-1',
      ids: ['mercadopago', 'ualabis', 'sandbox', 'fakepay'],
      label: 'FakePay',
      judged: 'fakepay',
      adapter: 'fakepay',
      missing: {
        ok: false,
        problem: { setting: 'portal.gateway.fakepay.api_key', reason: 'is not set' },
      },
    });
  });
});

/** What the copy's payments module says of the fourth gateway, as JSON on stdout. */
const CHECK = `import pino from 'pino';
import { judgingGateway } from './src/modules/payments/gateways/judging.js';
import { createGatewayRegistry } from './src/modules/payments/gateways/registry.js';
import { GATEWAY_IDS, gatewayLabel, isGatewayId } from './src/modules/payments/gateways/table.js';
import { paymentSettingsOf } from './src/modules/payments/settings.js';

const read = {
  gateway: 'fakepay',
  webhookToken: undefined,
  cuentaBancaria: undefined,
  cajaSchema: undefined,
  puntoVenta: 1,
  gatewaySettings: new Map([['fakepay.api_key', 'k-1']]),
};
const settings = paymentSettingsOf(read);
const id = 'fakepay';
if (!isGatewayId(id)) throw new Error('fakepay is not a gateway id');
const registry = createGatewayRegistry({
  environment: {
    isProduction: false,
    timeoutMs: 1000,
    allowedOrigins: [],
    publicUrl: 'http://127.0.0.1',
    switches: new Map(),
  },
  log: pino({ level: 'silent' }),
});
const tenant = { tenantId: 1, sucursalId: 1 } as Parameters<typeof registry.adapterFor>[0];
const built = registry.adapterFor(tenant, settings, id);
// Its own shape, which only its definition recognises: it judges the notification even when
// it is not the tenant's gateway.
const input = { headers: {}, query: {}, body: { fakepay_event: 'payment.updated' } };
const missing = registry.adapterFor(
  tenant,
  paymentSettingsOf({ ...read, gatewaySettings: new Map() }),
  id,
);
process.stdout.write(
  JSON.stringify({
    gateway: settings.gateway,
    apiKey: settings.gatewaySettings.get(id)?.get('api_key'),
    ids: GATEWAY_IDS,
    label: gatewayLabel(id),
    judged: judgingGateway(input, 'mercadopago', ['mercadopago', id]),
    adapter: built.ok ? built.adapter.id : built.problem,
    missing,
  }),
);
`;
