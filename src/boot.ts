import path from 'node:path';
import { ConfigError, loadConfig, type Config } from './config.js';
import { withDevDefaults } from './dev/dev-defaults.js';
import { withDevPrintAgentKeys } from './dev/print-agent-keys.js';
import { loadEnvFile } from './platform/env-file.js';

/** Shared start of `npm start` and the CLI: `.env`, development secrets, validated config. */
export async function bootConfig(): Promise<Config> {
  await loadEnvFile();
  const dataDir = path.resolve(process.env.PORTAL_DATA_DIR ?? '.data');
  const env = await withDevPrintAgentKeys(
    await withDevDefaults({ ...process.env }, dataDir),
    dataDir,
  );
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
