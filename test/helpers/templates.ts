import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { databaseUrlFor, dropDatabase, ensureDatabase } from '../../src/platform/db/admin.js';
import { quoteIdentifier } from '../../src/platform/db/identifiers.js';

/*
 * Test databases cloned from templates instead of built one by one: a test file's system
 * database is a copy of one migrated once per run, and a tenant database a copy of one built once
 * per shape (its sucursales, cash schema, migrated or not). PostgreSQL copies a database in a
 * few milliseconds of its own CPU; building one runs the ERP fixture's and the portal's
 * migrations, dozens of statements each. The templates are named with the run's prefix, so the
 * run's teardown drops them with the rest.
 */

/** The templates this process knows exist, by server and shape. */
const known = new Map<string, Promise<string>>();

/** PostgreSQL's codes: the template is being copied or built from another connection. */
const TEMPLATE_BUSY = '55006';
const NO_SUCH_DATABASE = '3D000';
const DUPLICATE_DATABASE = '42P04';
/** Two renames to the same name at the same instant: the loser meets pg_database's unique index. */
const UNIQUE_VIOLATION = '23505';

const codeOf = (error: unknown) => (error as { code?: string }).code;

async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: databaseUrlFor(serverUrl, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * The template of this shape on this server, built by `build` when no process of the run built
 * it yet. It is built under a name of its own and renamed when whole, so a clone never copies
 * half a template, and two workers building it at once keep the first.
 */
function template(serverUrl: string, shape: string, build: (url: string) => Promise<void>) {
  const key = `${serverUrl} ${shape}`;
  let name = known.get(key);
  if (!name) {
    const hash = createHash('sha256').update(shape).digest('hex').slice(0, 12);
    const final = `${inject('dbPrefix')}_tpl_${hash}`;
    name = (async () => {
      const exists = await onServer(serverUrl, (client) =>
        client.query('SELECT 1 FROM pg_database WHERE datname = $1', [final]),
      );
      if (exists.rowCount !== 0) return final;
      const building = `${final}_${randomBytes(3).toString('hex')}`;
      await ensureDatabase(serverUrl, building);
      try {
        await build(databaseUrlFor(serverUrl, building));
        await onServer(serverUrl, (client) =>
          client.query(
            `ALTER DATABASE ${quoteIdentifier(building)} RENAME TO ${quoteIdentifier(final)}`,
          ),
        );
      } catch (error) {
        await dropDatabase(serverUrl, building);
        const code = codeOf(error);
        if (code !== DUPLICATE_DATABASE && code !== UNIQUE_VIOLATION) throw error;
      }
      return final;
    })();
    known.set(key, name);
    name.catch(() => known.delete(key));
  }
  return name;
}

/**
 * Creates database `name` as a copy of the template of `shape` (built by `build` the first
 * time). A template some process is still connected to (PostgreSQL refuses to copy it then) is
 * tried again; one that vanished (a fault test's own server, started again empty) is rebuilt.
 */
export async function createFromTemplate(
  serverUrl: string,
  name: string,
  shape: string,
  build: (url: string) => Promise<void>,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const source = await template(serverUrl, shape, build);
    try {
      await onServer(serverUrl, (client) =>
        client.query(
          `CREATE DATABASE ${quoteIdentifier(name)} TEMPLATE ${quoteIdentifier(source)}`,
        ),
      );
      return;
    } catch (error) {
      const code = codeOf(error);
      if (attempt >= 20 || (code !== TEMPLATE_BUSY && code !== NO_SUCH_DATABASE)) throw error;
      if (code === NO_SUCH_DATABASE) known.delete(`${serverUrl} ${shape}`);
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}
