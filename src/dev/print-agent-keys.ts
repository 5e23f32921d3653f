import path from 'node:path';
import { findKeyFiles, writePrintAgentKeyPair } from '../modules/print/index.js';

type Env = Record<string, string | undefined>;

/**
 * Outside production, when neither QZ_PRIVATE_KEY_PATH nor QZ_CERTIFICATE_PATH is set, points
 * them at a development pair under `<dataDir>/qz`, generated on first run and kept afterwards
 * (QZ Tray trusts one certificate: a new one on every start would need installing every time).
 * Production never gets one: there the print routes answer 503 until the paths are configured.
 * Only `npm start` asks for it (bootConfig's `printAgentKeys`): the CLI never writes keys.
 */
export async function withDevPrintAgentKeys(env: Env, dataDir: string): Promise<Env> {
  if (env.NODE_ENV === 'production') return env;
  if (env.QZ_PRIVATE_KEY_PATH?.trim() || env.QZ_CERTIFICATE_PATH?.trim()) return env;
  const dir = path.join(dataDir, 'qz');
  const files =
    (await findKeyFiles(dir)) ??
    (await writePrintAgentKeyPair(dir, { commonName: 'Portal de clientes (desarrollo)' }));
  return {
    ...env,
    QZ_PRIVATE_KEY_PATH: files.privateKeyPath,
    QZ_CERTIFICATE_PATH: files.certificatePath,
  };
}
