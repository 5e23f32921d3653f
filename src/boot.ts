import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config.js';
import { withDevDefaults } from './dev/dev-defaults.js';
import { withDevPrintAgentKeys } from './dev/print-agent-keys.js';
import { loadEnvFile } from './platform/env-file.js';

export interface BootOptions {
  /**
   * Point QZ_* at the development key pair, generating it on first run (DECISIONS.md 39). Only
   * `npm start` serves the print routes; the CLI's commands must not write RSA keys.
   */
  printAgentKeys?: boolean;
}

/** Shared start of `npm start` and the CLI: `.env`, development secrets, validated config. */
export async function bootConfig(options: BootOptions = {}): Promise<Config> {
  await loadEnvFile();
  const dataDir = path.resolve(process.env.PORTAL_DATA_DIR ?? '.data');
  const defaults = await withDevDefaults({ ...process.env }, dataDir);
  const env = options.printAgentKeys ? await withDevPrintAgentKeys(defaults, dataDir) : defaults;
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
