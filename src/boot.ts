import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config.js';
import { loadEnvFile } from './platform/env-file.js';

export interface BootOptions {
  /**
   * Point QZ_* at the development key pair, generating it on first run (docs/decisions.md #39). Only
   * `npm start` serves the print routes; the CLI's commands must not write RSA keys.
   */
  printAgentKeys?: boolean;
  /**
   * Point the staff door at a development key pair when no PORTAL_STAFF_* is set, generating it
   * on first run (docs/staff.md). Only `npm start`: the CLI's commands must not write keys.
   */
  staffDevKeys?: boolean;
}

/**
 * Outside production, the generated secrets and the QZ pair. Imported on demand: production
 * loads no development code (both helpers also refuse to act there).
 */
async function withDevelopmentSettings(
  env: Record<string, string | undefined>,
  dataDir: string,
  options: BootOptions,
): Promise<Record<string, string | undefined>> {
  if (env.NODE_ENV === 'production') return env;
  const { withDevDefaults } = await import('./platform/dev-defaults.js');
  let settings = await withDevDefaults(env, dataDir);
  if (options.printAgentKeys) {
    const { withDevPrintAgentKeys } = await import('./dev/print-agent-keys.js');
    settings = await withDevPrintAgentKeys(settings, dataDir);
  }
  if (options.staffDevKeys) {
    const { withDevStaffKeys } = await import('./dev/staff-keys.js');
    settings = await withDevStaffKeys(settings, dataDir);
  }
  return settings;
}

/** Shared start of `npm start` and the CLI: `.env`, development secrets, validated config. */
export async function bootConfig(options: BootOptions = {}): Promise<Config> {
  await loadEnvFile();
  const dataDir = path.resolve(process.env.PORTAL_DATA_DIR ?? '.data');
  const env = await withDevelopmentSettings({ ...process.env }, dataDir, options);
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
