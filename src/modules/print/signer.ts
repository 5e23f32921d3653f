import { createHash, createPrivateKey, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { AppError } from '../../platform/errors.js';

import { MAX_SIGN_BYTES } from '../../../contract/print.js';

export { MAX_SIGN_BYTES };

/** What the QZ Tray routes need: the certificate to serve and a SHA512withRSA signer. */
export interface PrintSigner {
  /** The PEM text of QZ_CERTIFICATE_PATH (a chain is served as it is) and its strong ETag. */
  certificate(): { pem: string; etag: string };
  /** Base64 SHA512withRSA (RSASSA-PKCS1-v1_5) signature of the UTF-8 bytes of `data`. */
  sign(data: string): Promise<string>;
}

class PrintKeyError extends Error {
  override name = 'PrintKeyError';
}

function signWith(key: KeyObject) {
  return (data: string) =>
    new Promise<string>((resolve, reject) => {
      const bytes = Buffer.from(data, 'utf8');
      if (bytes.length > MAX_SIGN_BYTES) {
        reject(new AppError('VALIDATION_ERROR', 'data supera el máximo de 64 KB'));
        return;
      }
      // The callback form runs on libuv's thread pool: an RSA-2048 signature costs about 0.3 ms
      // of CPU, which the event loop must not pay on every print request (docs/benchmarks.md).
      sign('sha512', bytes, key, (error, signature) => {
        if (error) reject(error);
        else resolve(signature.toString('base64'));
      });
    });
}

async function readPem(variable: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new PrintKeyError(`${variable}: cannot read ${file}`, { cause: error });
  }
}

/**
 * Reads the key and certificate once, at start, and checks that they belong together: a
 * mismatch would only show up as QZ Tray rejecting every print, far from its cause.
 */
async function loadPrintSigner(paths: {
  privateKeyPath: string;
  certificatePath: string;
}): Promise<PrintSigner> {
  const [keyPem, certificatePem] = await Promise.all([
    readPem('QZ_PRIVATE_KEY_PATH', paths.privateKeyPath),
    readPem('QZ_CERTIFICATE_PATH', paths.certificatePath),
  ]);
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch (error) {
    throw new PrintKeyError(
      `QZ_PRIVATE_KEY_PATH: ${paths.privateKeyPath} is not an unencrypted PEM private key`,
      { cause: error },
    );
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new PrintKeyError('QZ_PRIVATE_KEY_PATH: QZ Tray signatures need an RSA key');
  }
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificatePem);
  } catch (error) {
    throw new PrintKeyError(
      `QZ_CERTIFICATE_PATH: ${paths.certificatePath} is not a PEM X.509 certificate`,
      { cause: error },
    );
  }
  if (!certificate.checkPrivateKey(key)) {
    throw new PrintKeyError(
      'QZ_PRIVATE_KEY_PATH and QZ_CERTIFICATE_PATH do not match: the certificate is not for this key',
    );
  }
  const pem = `${certificatePem.replaceAll('\r\n', '\n').trim()}\n`;
  const served = { pem, etag: `"${createHash('sha256').update(pem).digest('base64url')}"` };
  return { certificate: () => served, sign: signWith(key) };
}

/** Production without QZ_PRIVATE_KEY_PATH starts; only the print agent routes refuse (503). */
function unconfiguredPrintSigner(): PrintSigner {
  const refuse = () =>
    new AppError(
      'PRINT_AGENT_NOT_CONFIGURED',
      'La impresión directa no está configurada en el servidor (QZ_PRIVATE_KEY_PATH, QZ_CERTIFICATE_PATH)',
    );
  return {
    certificate() {
      throw refuse();
    },
    sign: () => Promise.reject(refuse()),
  };
}

/**
 * The signer the configuration asks for. Outside production `npm start` has already generated
 * a development pair under the data directory (src/dev/print-agent-keys.ts).
 */
export async function printSignerFor(
  config: { qzPrivateKeyPath: string | undefined; qzCertificatePath: string | undefined },
  warn: (message: string) => void,
): Promise<PrintSigner> {
  if (config.qzPrivateKeyPath === undefined || config.qzCertificatePath === undefined) {
    warn('QZ_PRIVATE_KEY_PATH is not set: /qz/certificate and /qz/sign answer 503');
    return unconfiguredPrintSigner();
  }
  return loadPrintSigner({
    privateKeyPath: config.qzPrivateKeyPath,
    certificatePath: config.qzCertificatePath,
  });
}
