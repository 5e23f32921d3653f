import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/dev/embedded-postgres.js';
import { databaseUrlFor } from '../../src/platform/db/admin.js';
import { freePort } from '../helpers/ports.js';
import { compileServer } from './compiled-server.js';
import { findRequirements, isCiRun, judgeRequirements } from '../helpers/requirements.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL server URL (any database); each test file creates its own databases. */
    pgServerUrl: string;
    /** Prefix of every database this run creates, so teardown can drop exactly those. */
    dbPrefix: string;
    /** The run's compiled copy of src/ for the processes tests start (compiled-server.ts). */
    compiledRoot: string;
    /**
     * Set in a project's own config (vitest.config.ts) when its files use nothing of this: a run
     * of such projects alone starts no database and makes no compiled copy.
     */
    usesNoRunServices?: boolean;
  }
}

/** Whether a project of this run (`--project` chooses them) uses what the run's set-up starts. */
export function runUsesServices(project: TestProject): boolean {
  return project.vitest.projects.some((each) => each.config.provide.usesNoRunServices !== true);
}

/**
 * The run's one set-up, whatever projects it holds (vitest.config.ts's root `globalSetup`:
 * every project reads what it provides). First what the run needs
 * (test/helpers/requirements.ts): in CI a missing Redis, openssl or TEST_DATABASE_URL fails the
 * run here, before any test could skip; elsewhere the note says what is skipped. Then one
 * PostgreSQL per test run: TEST_DATABASE_URL when given (CI's server), otherwise a disposable
 * embedded cluster in a temporary directory; and one compiled copy of src/.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!runUsesServices(project)) return () => Promise.resolve();
  const requirements = await findRequirements();
  const note = judgeRequirements(requirements, isCiRun());
  // eslint-disable-next-line no-console -- the run's own note on what it skips, once
  if (note !== undefined) console.warn(note);
  project.provide('requirements', requirements);

  const dbPrefix = `portal_t${randomBytes(3).toString('hex')}`;
  let embedded: EmbeddedDatabase | undefined;
  let serverUrl = 'value' in requirements.database ? requirements.database.value : undefined;
  if (serverUrl === undefined) {
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(tmpdir(), `${dbPrefix}-pg`),
      port: await freePort(),
      password: randomBytes(12).toString('hex'),
      disposable: true,
    });
    serverUrl = embedded.url('postgres');
  }
  project.provide('pgServerUrl', serverUrl);
  project.provide('dbPrefix', dbPrefix);
  const compiled = await compileServer();
  project.provide('compiledRoot', compiled.root);

  return async () => {
    await compiled.remove();
    if (embedded) {
      await embedded.stop();
      await rm(embedded.dataDir, { recursive: true, force: true });
      return;
    }
    // A shared server: drop what this run created and nothing else.
    const client = new pg.Client({ connectionString: databaseUrlFor(serverUrl, 'postgres') });
    await client.connect();
    try {
      const { rows } = await client.query<{ datname: string }>(
        'SELECT datname FROM pg_database WHERE datname LIKE $1',
        [`${dbPrefix}%`],
      );
      for (const { datname } of rows) {
        await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
      }
    } finally {
      await client.end();
    }
  };
}
