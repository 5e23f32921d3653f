import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { defineCommand, type Command } from '../../platform/cli/command.js';
import { CERTIFICATE_FILE, findKeyFiles, KEY_FILE, writePrintAgentKeyPair } from './keys.js';

/**
 * `npm run cli -- qz keygen`: a self-signed RSA-2048 pair for QZ Tray in `out`. An existing
 * pair is kept unless `force`: QZ Tray installations trust that certificate, and replacing it
 * silently would break printing on every machine that has it.
 */
export async function qzKeygen(
  options: { out: string; commonName?: string | undefined; force: boolean },
  say: (line: string) => void,
): Promise<void> {
  const dir = path.resolve(options.out);
  if (!options.force && (await findKeyFiles(dir))) {
    throw new Error(
      `${dir} already holds ${KEY_FILE} and ${CERTIFICATE_FILE}; pass --force to replace them`,
    );
  }
  const files = await writePrintAgentKeyPair(dir, {
    ...(options.commonName !== undefined && { commonName: options.commonName }),
  });
  const certificate = new X509Certificate(await readFile(files.certificatePath));
  say(`private key   ${files.privateKeyPath} (mode 600, keep it secret)`);
  say(`certificate   ${files.certificatePath}`);
  say(`subject       ${certificate.subject.replaceAll('\n', ', ')}`);
  say(`valid until   ${new Date(certificate.validTo).toISOString()}`);
  say(`sha256        ${certificate.fingerprint256}`);
  say('');
  say('Configure the API with:');
  say(`  QZ_PRIVATE_KEY_PATH=${files.privateKeyPath}`);
  say(`  QZ_CERTIFICATE_PATH=${files.certificatePath}`);
  say('and install the certificate in QZ Tray (docs/print-agent.md).');
}

/** Where `qz keygen` writes without --out: `qz/` in the data directory (PORTAL_DATA_DIR). */
export interface KeygenSettings {
  dataDir: string;
}

/** The print agent's commands (src/cli.ts's table); it touches no database. */
export const printCommands: Record<string, Command<KeygenSettings>> = {
  'qz keygen': defineCommand({
    usage: `qz keygen [--out <dir>] [--cn <name>] [--force]
      Write a self-signed RSA-2048 key and certificate for QZ Tray (default dir: <data dir>/qz).`,
    options: {
      out: { type: 'string' },
      cn: { type: 'string' },
      force: { type: 'boolean', default: false },
    },
    async run(values, { say, settings }) {
      const out = values.out ?? path.join((await settings()).dataDir, 'qz');
      await qzKeygen({ out, commonName: values.cn, force: values.force }, say);
      return 0;
    },
  }),
};
