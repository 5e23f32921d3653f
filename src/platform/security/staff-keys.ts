import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import { request } from 'undici';
import type { Clock } from '../clock.js';

/*
 * The administrative system's public keys (docs/staff.md "Keys"): from a PEM file or a JWKS
 * address, each under its `kid`. A file's keys are named by their SPKI thumbprint (base64url
 * SHA-256 of the DER SubjectPublicKeyInfo), which the administrative system computes the same
 * way; a JWKS names its own. An unknown `kid` reads the source again, at most once a minute, so
 * a key added to the file or the JWKS is taken without a restart, and a stream of made-up ids
 * costs one read a minute.
 */

/** How often an unknown `kid` may read the keys again. */
export const KEY_REFRESH_MS = 60_000;
/** A JWKS is a few KB; a larger answer is refused rather than buffered. */
const MAX_JWKS_BYTES = 256 * 1024;
const JWKS_TIMEOUT_MS = 5_000;

export interface StaffKeySet {
  /** The key named `kid`, reading the source again (at most once a minute) when it is unknown. */
  byId(kid: string): Promise<KeyObject | undefined>;
  /** Every key, for a token without `kid`. */
  all(): Promise<readonly KeyObject[]>;
}

/** How the deployment names the keys (config.ts: PORTAL_STAFF_*), with the issuer they sign for. */
export type StaffKeySettings =
  | { readonly kind: 'pem'; readonly path: string; readonly issuer: string }
  | { readonly kind: 'jwks'; readonly url: string; readonly issuer: string };

export type StaffKeySource =
  | { kind: 'pem'; path: string }
  | { kind: 'jwks'; url: string }
  /** Keys given as they are (the development key pair, tests). */
  | { kind: 'fixed'; keys: readonly KeyObject[] };

/** base64url SHA-256 of the key's DER SPKI: the `kid` of a key from a PEM file. */
export function spkiThumbprint(key: KeyObject): string {
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
}

function isRsa(key: KeyObject): boolean {
  return key.asymmetricKeyType === 'rsa';
}

/** Every `PUBLIC KEY` (SPKI) or `RSA PUBLIC KEY` (PKCS#1) block of a PEM text, RSA ones only. */
export function keysOfPem(text: string): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  const blocks = text.match(
    /-----BEGIN (?:RSA )?PUBLIC KEY-----[\s\S]*?-----END (?:RSA )?PUBLIC KEY-----/g,
  );
  for (const block of blocks ?? []) {
    const key = createPublicKey({ key: block, format: 'pem' });
    if (isRsa(key)) keys.set(spkiThumbprint(key), key);
  }
  return keys;
}

interface Jwk {
  kty?: unknown;
  kid?: unknown;
  use?: unknown;
  alg?: unknown;
  n?: unknown;
  e?: unknown;
}

/** The RSA signing keys of a JWKS document, by `kid` (a key without one cannot be picked). */
export function keysOfJwks(document: unknown): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  const list: unknown =
    typeof document === 'object' && document !== null && 'keys' in document
      ? document.keys
      : undefined;
  if (!Array.isArray(list)) throw new Error('the JWKS has no "keys" list');
  for (const entry of list as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const jwk: Jwk = entry;
    if (jwk.kty !== 'RSA' || typeof jwk.kid !== 'string' || jwk.kid === '') continue;
    if (jwk.use !== undefined && jwk.use !== 'sig') continue;
    if (jwk.alg !== undefined && jwk.alg !== 'RS256') continue;
    if (typeof jwk.n !== 'string' || typeof jwk.e !== 'string') continue;
    keys.set(jwk.kid, createPublicKey({ key: { kty: 'RSA', n: jwk.n, e: jwk.e }, format: 'jwk' }));
  }
  return keys;
}

async function fetchJwks(url: string): Promise<Map<string, KeyObject>> {
  const answer = await request(url, {
    method: 'GET',
    headers: { accept: 'application/json' },
    headersTimeout: JWKS_TIMEOUT_MS,
    bodyTimeout: JWKS_TIMEOUT_MS,
  });
  if (answer.statusCode !== 200) {
    await answer.body.dump();
    throw new Error(`the JWKS answered ${answer.statusCode}`);
  }
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of answer.body) {
    const piece = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += piece.length;
    if (size > MAX_JWKS_BYTES) {
      answer.body.destroy();
      throw new Error('the JWKS is larger than 256 KB');
    }
    chunks.push(piece);
  }
  return keysOfJwks(JSON.parse(Buffer.concat(chunks).toString('utf8')));
}

export function createStaffKeySet(
  source: StaffKeySource,
  deps: { clock: Clock; log: FastifyBaseLogger },
): StaffKeySet {
  const { clock, log } = deps;
  let keys = new Map<string, KeyObject>();
  let readAt: number | undefined;
  let reading: Promise<void> | undefined;

  async function readSource(): Promise<Map<string, KeyObject>> {
    switch (source.kind) {
      case 'fixed':
        return new Map(source.keys.filter(isRsa).map((key) => [spkiThumbprint(key), key]));
      case 'pem':
        return keysOfPem(await readFile(source.path, 'utf8'));
      case 'jwks':
        return fetchJwks(source.url);
    }
  }

  /** Reads the keys again unless they were read within the minute; one read at a time. */
  function refresh(): Promise<void> {
    const now = clock.now().getTime();
    if (readAt !== undefined && now - readAt < KEY_REFRESH_MS) return Promise.resolve();
    reading ??= (async () => {
      readAt = now;
      try {
        keys = await readSource();
        if (keys.size === 0) log.warn('the staff keys hold no RSA public key');
      } catch (error) {
        // The keys read before stay: a key server that is down does not close the door.
        log.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'the staff keys could not be read',
        );
      } finally {
        reading = undefined;
      }
    })();
    return reading;
  }

  return {
    async byId(kid) {
      const known = keys.get(kid);
      if (known) return known;
      await refresh();
      return keys.get(kid);
    },
    async all() {
      if (readAt === undefined) await refresh();
      return [...keys.values()];
    },
  };
}
