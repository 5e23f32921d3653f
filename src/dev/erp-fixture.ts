import { readFile } from 'node:fs/promises';
import type pg from 'pg';
import { quoteIdentifier } from '../platform/db/identifiers.js';
import { fromRoot } from '../platform/paths.js';

/**
 * Creates the ERP tables the portal uses (db/erp/), for development and tests only: in
 * production the ERP owns them.
 */
async function applyFile(client: pg.ClientBase, file: string, schema?: string): Promise<void> {
  const text = await readFile(fromRoot('db', 'erp', file), 'utf8');
  await client.query(
    schema === undefined ? text : text.replaceAll('{{schema}}', quoteIdentifier(schema)),
  );
}

export function createErpPublicTables(client: pg.ClientBase): Promise<void> {
  return applyFile(client, 'public.sql');
}

export function createErpCustomerTables(client: pg.ClientBase, schema: string): Promise<void> {
  return applyFile(client, 'customer.sql', schema);
}

export function createErpCashTables(client: pg.ClientBase, schema: string): Promise<void> {
  return applyFile(client, 'cash.sql', schema);
}
