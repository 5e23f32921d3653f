import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { databaseUrlFor, ensureDatabase } from '../../platform/db/admin.js';
import { addDays, dateInTimeZone, DEFAULT_TIME_ZONE } from '../../platform/dates.js';
import {
  createErpCashTables,
  createErpCustomerTables,
  createErpPublicTables,
} from '../erp-fixture.js';
import { hashPassword } from '../../platform/security/passwords.js';
import { registerTenant } from '../../platform/tenancy/registration.js';
import { insertDemoFiscalData } from './demo-fiscal.js';

/**
 * The demo tenant of `npm start` on the embedded database: tenant 1 with sucursal 1 (customer
 * data in `suc0001`) and sucursal 2 (customer data centralized in `public`), customers known by
 * DNI and by CUIT, realistic ledgers, one customer already registered in the portal.
 * Dates are relative to the day the seed runs. The README lists the same data.
 */
export const DEMO_TENANT = { id: 1, nombre: 'Distribuidora Demo S.A.' } as const;
export const DEMO_DATABASES = { system: 'portal_system', tenant: 'portal_demo' } as const;
export const DEMO_LOGIN = {
  tenant_id: 1,
  sucursal_id: 1,
  identifier: '20304050',
  identifier_type: 'dni',
  password: 'Portal2026',
} as const;

interface LedgerRow {
  tipo: 'FAC' | 'ND' | 'NC' | 'REC';
  comprobante: string;
  nrocomp: string;
  /** Days from today. */
  fecha: number;
  vencimiento: number | null;
  debe: string;
  haber?: string;
  saldo: string;
  /** Receipts: the invoices they settled and how much of each. */
  aplica?: { nrocomp: string; monto: string }[];
}

interface DemoCustomer {
  schema: string;
  cnro: number;
  cnom: string;
  ccui: string;
  ledger: LedgerRow[];
}

const FA = 'Factura A';
const FB = 'Factura B';

const CUSTOMERS: DemoCustomer[] = [
  {
    schema: 'suc0001',
    cnro: 1001,
    cnom: 'Juan Pérez',
    ccui: '20304050',
    ledger: [
      {
        tipo: 'FAC',
        comprobante: FB,
        nrocomp: '0001-00001230',
        fecha: -95,
        vencimiento: -65,
        debe: '0',
        saldo: '0',
      },
      {
        tipo: 'FAC',
        comprobante: FB,
        nrocomp: '0001-00001301',
        fecha: -70,
        vencimiento: -40,
        debe: '20000.00',
        saldo: '20000.00',
      },
      {
        tipo: 'REC',
        comprobante: 'Recibo',
        nrocomp: 'RC0001-00000041',
        fecha: -35,
        vencimiento: null,
        debe: '0',
        haber: '63500.00',
        saldo: '0',
        aplica: [
          { nrocomp: '0001-00001230', monto: '45000.00' },
          { nrocomp: '0001-00001301', monto: '18500.00' },
        ],
      },
      {
        tipo: 'ND',
        comprobante: 'Nota de Débito B',
        nrocomp: '0001-00000077',
        fecha: -30,
        vencimiento: -15,
        debe: '1250.50',
        saldo: '1250.50',
      },
      {
        tipo: 'FAC',
        comprobante: FB,
        nrocomp: '0001-00001345',
        fecha: -20,
        vencimiento: 10,
        debe: '52340.75',
        saldo: '52340.75',
      },
      {
        tipo: 'FAC',
        comprobante: FB,
        nrocomp: '0001-00001390',
        fecha: -2,
        vencimiento: 28,
        debe: '15600.00',
        saldo: '15600.00',
      },
      {
        tipo: 'FAC',
        comprobante: FB,
        nrocomp: '0001-00001388',
        fecha: -5,
        vencimiento: null,
        debe: '8900.00',
        saldo: '8900.00',
      },
    ],
  },
  {
    schema: 'suc0001',
    cnro: 1002,
    cnom: 'María González',
    // Stored with dashes, as some ERP screens save it: the portal compares digits only.
    ccui: '27-28765431-1',
    ledger: [
      {
        tipo: 'FAC',
        comprobante: FA,
        nrocomp: '0001-00000512',
        fecha: -50,
        vencimiento: -20,
        debe: '120500.00',
        saldo: '120500.00',
      },
      {
        tipo: 'FAC',
        comprobante: FA,
        nrocomp: '0001-00000540',
        fecha: -10,
        vencimiento: 20,
        debe: '98000.00',
        saldo: '98000.00',
      },
      {
        tipo: 'NC',
        comprobante: 'Nota de Crédito A',
        nrocomp: '0001-00000031',
        fecha: -8,
        vencimiento: null,
        debe: '0',
        haber: '5000.00',
        // Applied to no invoice yet: the customer's saldo a favor (docs/decisions.md #48).
        saldo: '5000.00',
      },
    ],
  },
  {
    schema: 'suc0001',
    cnro: 1003,
    cnom: 'Ferretería El Tornillo S.R.L.',
    ccui: '30712345671',
    ledger: [
      {
        tipo: 'FAC',
        comprobante: FA,
        nrocomp: '0001-00000601',
        fecha: -40,
        vencimiento: -10,
        debe: '310000.00',
        saldo: '310000.00',
      },
      {
        tipo: 'ND',
        comprobante: 'Nota de Débito A',
        nrocomp: '0001-00000045',
        fecha: -9,
        vencimiento: -2,
        debe: '4650.00',
        saldo: '4650.00',
      },
      {
        tipo: 'FAC',
        comprobante: FA,
        nrocomp: '0001-00000622',
        fecha: -3,
        vencimiento: 27,
        debe: '187250.40',
        saldo: '187250.40',
      },
    ],
  },
  {
    schema: 'suc0001',
    cnro: 1004,
    cnom: 'Carlos Rodríguez',
    ccui: '5123456',
    ledger: [
      {
        tipo: 'FAC',
        comprobante: FB,
        nrocomp: '0001-00001101',
        fecha: -120,
        vencimiento: -90,
        debe: '0',
        saldo: '0',
      },
      {
        tipo: 'REC',
        comprobante: 'Recibo',
        nrocomp: 'RC0001-00000030',
        fecha: -88,
        vencimiento: null,
        debe: '0',
        haber: '12000.00',
        saldo: '0',
        aplica: [{ nrocomp: '0001-00001101', monto: '12000.00' }],
      },
    ],
  },
  {
    schema: 'public',
    cnro: 2001,
    cnom: 'Lucía Fernández',
    ccui: '31222333',
    ledger: [
      {
        tipo: 'FAC',
        comprobante: FB,
        nrocomp: '0002-00000210',
        fecha: -25,
        vencimiento: -5,
        debe: '23400.00',
        saldo: '23400.00',
      },
      {
        tipo: 'FAC',
        comprobante: FB,
        nrocomp: '0002-00000233',
        fecha: -1,
        vencimiento: 29,
        debe: '17800.00',
        saldo: '17800.00',
      },
    ],
  },
  {
    schema: 'public',
    cnro: 2002,
    cnom: 'Agro Norte S.A.',
    ccui: '30715556665',
    ledger: [
      {
        tipo: 'FAC',
        comprobante: FA,
        nrocomp: '0002-00000198',
        fecha: -60,
        vencimiento: -30,
        debe: '450000.00',
        saldo: '450000.00',
      },
      {
        tipo: 'FAC',
        comprobante: FA,
        nrocomp: '0002-00000240',
        fecha: -4,
        vencimiento: null,
        debe: '72500.00',
        saldo: '72500.00',
      },
    ],
  },
];

const RECEIPT_COUNTERS = [
  { schema: 'suc0001', ultimo: 41 },
  { schema: 'public', ultimo: 12 },
];

async function insertLedger(client: pg.ClientBase, customer: DemoCustomer, today: string) {
  const ids = new Map<string, string>();
  for (const row of customer.ledger) {
    const id = randomUUID();
    ids.set(row.nrocomp, id);
    await client.query(
      `INSERT INTO ${customer.schema}.ordcta
         (id, cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, haber, saldo)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        id,
        customer.cnro,
        row.tipo,
        row.comprobante,
        row.nrocomp,
        addDays(today, row.fecha),
        row.vencimiento === null ? null : addDays(today, row.vencimiento),
        row.debe,
        row.haber ?? '0',
        row.saldo,
      ],
    );
  }
  for (const row of customer.ledger) {
    for (const link of row.aplica ?? []) {
      await client.query(
        `INSERT INTO ${customer.schema}.recfac (recibo_id, factura_id, monto) VALUES ($1, $2, $3)`,
        [ids.get(row.nrocomp), ids.get(link.nrocomp), link.monto],
      );
    }
  }
}

async function createErpData(tenantUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: tenantUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await createErpPublicTables(client);
    await createErpCustomerTables(client, 'suc0001');
    await createErpCustomerTables(client, 'public');
    await createErpCashTables(client, 'caja');
    await client.query(
      `INSERT INTO public.sucursales (id, nombre, clientes_centralizados)
       VALUES (1, 'Casa Central', false), (2, 'Sucursal Norte', true)`,
    );
    const ini: [string, string][] = [
      ['sistema.payment_gateway', 'sandbox'],
      ['sistema.zona_horaria', DEFAULT_TIME_ZONE],
      ['portal.webhook_token', randomBytes(24).toString('hex')],
      ['portal.gateway.sandbox.webhook_secret', randomBytes(32).toString('hex')],
      ['portal.recibo.cuenta_bancaria', 'Banco de la Nación Argentina CC 0123-456789/0'],
      ['portal.recibo.caja_schema', 'caja'],
      ['portal.recibo.punto_venta', '1'],
      ['mail.from', 'Distribuidora Demo <no-reply@demo.invalid>'],
    ];
    for (const [clave, valor] of ini) {
      await client.query('INSERT INTO public.ini (clave, valor) VALUES ($1, $2)', [clave, valor]);
    }
    const today = dateInTimeZone(new Date(), DEFAULT_TIME_ZONE);
    for (const customer of CUSTOMERS) {
      await client.query(
        `INSERT INTO ${customer.schema}.ordcon (cnro, cnom, ccui) VALUES ($1, $2, $3)`,
        [customer.cnro, customer.cnom, customer.ccui],
      );
      await insertLedger(client, customer, today);
    }
    for (const counter of RECEIPT_COUNTERS) {
      await client.query(
        `INSERT INTO ${counter.schema}.numeradores (tipo, punto_venta, ultimo) VALUES ('REC', 1, $1)`,
        [counter.ultimo],
      );
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.end();
  }
}

async function ensureDemoUser(tenantUrl: string, passwordHash?: string): Promise<void> {
  const client = new pg.Client({ connectionString: tenantUrl });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM suc0001.portal_users WHERE cnro = 1001');
    if (existing.rowCount !== 0) return;
    await client.query(
      `INSERT INTO suc0001.portal_users (cnro, dni_cuit, email, telefono, password_hash)
       VALUES (1001, $1, 'juan.perez@demo.invalid', '+54 11 5555-0101', $2)
       ON CONFLICT (cnro) DO NOTHING`,
      [DEMO_LOGIN.identifier, passwordHash ?? (await hashPassword(DEMO_LOGIN.password))],
    );
  } finally {
    await client.end();
  }
}

/**
 * The demo's electronic invoices (src/dev/seed/demo-fiscal.ts), once: also into a demo database
 * seeded before the fiscal tables existed (their CREATE ... IF NOT EXISTS leave the rest alone).
 */
async function ensureFiscalData(tenantUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: tenantUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await createErpPublicTables(client);
    await createErpCustomerTables(client, 'suc0001');
    await createErpCustomerTables(client, 'public');
    const issuers = await client.query('SELECT 1 FROM public.empfiscal');
    if (issuers.rowCount === 0) {
      await insertDemoFiscalData(client);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.end();
  }
}

async function hasErpData(tenantUrl: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: tenantUrl });
  await client.connect();
  try {
    const found = await client.query(
      "SELECT to_regclass('public.sucursales') IS NOT NULL AS present",
    );
    return (found.rows[0] as { present: boolean }).present;
  } finally {
    await client.end();
  }
}

/**
 * Creates the system database and the demo tenant on a server (the embedded one), once: an
 * existing demo database is left as it is (only pending migrations run), so restarts keep data.
 */
export async function seedDemo(
  serverUrl: string,
  names: { system: string; tenant: string } = DEMO_DATABASES,
  /** passwordHash: the demo user's, made beforehand (the tests' portals), instead of hashing. */
  options: { passwordHash?: string } = {},
): Promise<{ systemUrl: string; tenantUrl: string; created: boolean }> {
  const systemUrl = databaseUrlFor(serverUrl, names.system);
  const tenantUrl = databaseUrlFor(serverUrl, names.tenant);
  await ensureDatabase(serverUrl, names.system);
  await ensureDatabase(serverUrl, names.tenant);
  // The ERP data goes in one transaction, so "tables exist" means "seeded".
  const created = !(await hasErpData(tenantUrl));
  if (created) await createErpData(tenantUrl);
  await ensureFiscalData(tenantUrl);
  await registerTenant(systemUrl, { ...DEMO_TENANT, databaseUrl: tenantUrl });
  await ensureDemoUser(tenantUrl, options.passwordHash);
  return { systemUrl, tenantUrl, created };
}
