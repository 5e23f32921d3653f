import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startFakeCucuru, type FakeCucuru } from './cucuru-fake.js';

/*
 * `npm start`'s bank transfers (docs/transfers.md "Trying it"): a local fake of Cucuru's API on
 * a port of its own, and the demo tenant's rail pointed at it on every start (its port changes),
 * so a new user sees a transfer to a customer's CVU become a receipt. Development only.
 */

const API_KEY = 'demo-cucuru-api-key';
const COLLECTOR = 'demo-collector';

export async function startDevTransfers(systemUrl: string, tenantId: number): Promise<FakeCucuru> {
  const fake = await startFakeCucuru({ apiKey: API_KEY, collectorId: COLLECTOR });
  try {
    const system = new pg.Client({ connectionString: systemUrl });
    await system.connect();
    let tenantUrl: string | undefined;
    try {
      const { rows } = await system.query<{ database_url: string }>(
        'SELECT database_url FROM tenants WHERE id = $1',
        [tenantId],
      );
      tenantUrl = rows[0]?.database_url;
    } finally {
      await system.end();
    }
    if (tenantUrl === undefined) throw new Error(`no demo tenant ${tenantId}`);
    const tenant = new pg.Client({ connectionString: tenantUrl });
    await tenant.connect();
    try {
      const ini: [string, string][] = [
        ['portal.transferencias.proveedor', 'cucuru'],
        ['portal.transferencias.cucuru.api_key', API_KEY],
        ['portal.transferencias.cucuru.collector_id', COLLECTOR],
        ['portal.transferencias.cucuru.base_url', fake.baseUrl],
        ['portal.transferencias.cuenta_bancaria', 'Cucuru CVU recaudadora'],
      ];
      for (const [clave, valor] of ini) {
        await tenant.query(
          `INSERT INTO public.ini (clave, valor) VALUES ($1, $2)
           ON CONFLICT (clave) DO UPDATE SET valor = excluded.valor`,
          [clave, valor],
        );
      }
      // The token is kept across starts: the registered address stays the one the fake knows.
      await tenant.query(
        `INSERT INTO public.ini (clave, valor) VALUES ('portal.transferencias.cucuru.webhook_token', $1)
         ON CONFLICT (clave) DO NOTHING`,
        [randomBytes(24).toString('hex')],
      );
      // The fake forgets its registration when it stops: the janitor registers again at start.
      await tenant.query(`DELETE FROM public.portal_transfer_webhooks WHERE tenant_id = $1`, [
        tenantId,
      ]);
      // The fake forgets its accounts too: the customers' CVUs are assigned again.
      await tenant.query(`DELETE FROM public.portal_transfer_accounts WHERE tenant_id = $1`, [
        tenantId,
      ]);
    } finally {
      await tenant.end();
    }
    return fake;
  } catch (error) {
    await fake.close();
    throw error;
  }
}
