import path from 'node:path';
import type { Config } from '../config.js';
import { seedDemo } from './seed/demo.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres.js';

export interface EmbeddedRuntime {
  systemUrl: string;
  database: EmbeddedDatabase;
  seeded: boolean;
}

/**
 * The embedded defaults of `npm start` (DATABASE_URL unset): a real PostgreSQL under the data
 * directory, the system registry database and the demo tenant, created on first run.
 */
export async function startEmbeddedRuntime(
  config: Config,
  log: (message: string) => void,
  options: { keepAdopted?: boolean } = {},
): Promise<EmbeddedRuntime> {
  const database = await startEmbeddedPostgres({
    dataDir: path.join(path.resolve(config.dataDir), 'pg'),
    port: config.embeddedPgPort,
    password: config.embeddedPgPassword,
    keepAdopted: options.keepAdopted ?? false,
    log,
  });
  try {
    const { systemUrl, created } = await seedDemo(database.url('postgres'));
    return { systemUrl, database, seeded: created };
  } catch (error) {
    await database.stop();
    throw error;
  }
}
