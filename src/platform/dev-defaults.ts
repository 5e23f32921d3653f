import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

type Env = Record<string, string | undefined>;

/** Secrets development generates once and keeps under the data directory. */
const GENERATED = ['PORTAL_JWT_SECRET', 'REPORTS_SERVICE_SECRET', 'EMBEDDED_PG_PASSWORD'] as const;

/**
 * Outside production, fills the secrets that are not set from `<dataDir>/secrets.json`,
 * generating and saving them on first run, so restarts keep sessions and the database password.
 * Variables set in the environment always win. Here, not in src/dev/: both processes read the
 * same file (src/boot.ts, src/reports/main.ts), and the reports service imports nothing of dev/.
 * Each imports it only outside production, so production still loads no development code.
 */
export async function withDevDefaults(env: Env, dataDir: string): Promise<Env> {
  if (env.NODE_ENV === 'production') return env;
  const file = path.join(dataDir, 'secrets.json');
  const saved = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as Record<string, string>,
    (): Record<string, string> => ({}),
  );
  let changed = false;
  for (const name of GENERATED) {
    if (saved[name] === undefined) {
      saved[name] = randomBytes(32).toString('base64url');
      changed = true;
    }
  }
  if (changed) {
    await mkdir(dataDir, { recursive: true, mode: 0o755 });
    await writeFile(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  }
  const merged: Env = { ...env };
  for (const name of GENERATED) merged[name] ??= saved[name];
  return merged;
}
