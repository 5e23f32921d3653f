import { generateKeyPair, randomBytes } from 'node:crypto';
import { access, mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import forge from 'node-forge';

const generateRsaKeyPair = promisify(generateKeyPair);

interface PrintAgentKeyPair {
  /** PKCS#8 PEM, unencrypted: what QZ_PRIVATE_KEY_PATH points at. */
  privateKeyPem: string;
  /** X.509 PEM: what QZ_CERTIFICATE_PATH points at and QZ Tray is told to trust. */
  certificatePem: string;
}

interface KeyPairOptions {
  commonName?: string;
  validityYears?: number;
  now?: Date;
}

/** File names inside a key directory (`qz keygen --out`, `.data/qz`). */
export const KEY_FILE = 'private-key.pem';
export const CERTIFICATE_FILE = 'certificate.pem';

/**
 * A self-signed RSA-2048 certificate for QZ Tray (docs/decisions.md #39). Node generates the key on
 * libuv's pool; node-forge only builds and signs the certificate (SHA-256), which Node cannot do.
 */
async function generatePrintAgentKeyPair(options: KeyPairOptions = {}): Promise<PrintAgentKeyPair> {
  const { privateKey, publicKey } = await generateRsaKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const now = options.now ?? new Date();
  const notAfter = new Date(now);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + (options.validityYears ?? 10));

  const certificate = forge.pki.createCertificate();
  certificate.publicKey = forge.pki.publicKeyFromPem(publicKey);
  // A positive serial (leading 0x01) of 128 random bits, as RFC 5280 asks.
  certificate.serialNumber = `01${randomBytes(16).toString('hex')}`;
  certificate.validity.notBefore = now;
  certificate.validity.notAfter = notAfter;
  const name = [
    { name: 'commonName', value: options.commonName ?? 'Portal de clientes (desarrollo)' },
    { name: 'organizationName', value: 'Portal de clientes' },
    { name: 'countryName', value: 'AR' },
  ];
  certificate.setSubject(name);
  certificate.setIssuer(name);
  certificate.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyCertSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  certificate.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  // node-forge ends PEM lines with CRLF; Node and OpenSSL write LF.
  const certificatePem = forge.pki.certificateToPem(certificate).replaceAll('\r\n', '\n');
  return { privateKeyPem: privateKey, certificatePem };
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** Both files of a key directory, when both are there. */
export async function findKeyFiles(
  dir: string,
): Promise<{ privateKeyPath: string; certificatePath: string } | undefined> {
  const privateKeyPath = path.join(dir, KEY_FILE);
  const certificatePath = path.join(dir, CERTIFICATE_FILE);
  const found = (await exists(privateKeyPath)) && (await exists(certificatePath));
  return found ? { privateKeyPath, certificatePath } : undefined;
}

/**
 * Writes a new pair into `dir` (the key readable by its owner only). Each file is written
 * beside its final name and renamed, so a reader never sees half a PEM.
 */
export async function writePrintAgentKeyPair(
  dir: string,
  options: KeyPairOptions = {},
): Promise<{ privateKeyPath: string; certificatePath: string }> {
  const pair = await generatePrintAgentKeyPair(options);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const privateKeyPath = path.join(dir, KEY_FILE);
  const certificatePath = path.join(dir, CERTIFICATE_FILE);
  const suffix = `.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(privateKeyPath + suffix, pair.privateKeyPem, { mode: 0o600 });
  await writeFile(certificatePath + suffix, pair.certificatePem, { mode: 0o644 });
  await rename(privateKeyPath + suffix, privateKeyPath);
  await rename(certificatePath + suffix, certificatePath);
  return { privateKeyPath, certificatePath };
}
