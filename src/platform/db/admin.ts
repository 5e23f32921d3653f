import pg from 'pg';
import { quoteIdentifier } from './identifiers.js';

/** The URL of another database on the same server (same credentials and options). */
export function databaseUrlFor(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates the database when missing; answers whether it did. */
export async function ensureDatabase(serverUrl: string, database: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrlFor(serverUrl, 'postgres') });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount !== 0) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdentifier(database)}`);
    } catch (error) {
      // Another process created it between the check and the CREATE.
      if ((error as { code?: string }).code === '42P04') return false;
      throw error;
    }
    return true;
  } finally {
    await client.end();
  }
}

export async function dropDatabase(serverUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrlFor(serverUrl, 'postgres') });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(database)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
