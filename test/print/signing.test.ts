import { constants, createHash, publicDecrypt, verify, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePrintAgentKeyPair } from '../../src/modules/print/keys.js';
import { fromRoot } from '../../src/platform/paths.js';
import { addAuthTenant, bearer, login, register } from '../helpers/auth.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { requireOpenssl } from '../helpers/requirements.js';

/*
 * openssl is a second, independent reader of the certificate and the signatures. Its checks are
 * tests of their own: in CI global set-up fails without openssl; elsewhere they are skipped with
 * the reason in their names. The same facts are asserted with Node's crypto in any case.
 */
const openssl = requireOpenssl();

/** DER of the OID sha256WithRSAEncryption (1.2.840.113549.1.1.11). */
const SHA256_WITH_RSA_OID = Buffer.from('06092a864886f70d01010b', 'hex');
/** DER prefix of a PKCS#1 v1.5 DigestInfo for SHA-512 (RFC 8017, 9.2 note 1). */
const SHA512_DIGEST_INFO = Buffer.from('3051300d060960864801650304020305000440', 'hex');

/** How many times `needle` occurs in `haystack`. */
function occurrences(haystack: Buffer, needle: Buffer): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    count += 1;
  }
  return count;
}

const env = useTestEnvironment();
let app: FastifyInstance;
let token: string;
let keyDir: string;
let keys: { privateKeyPath: string; certificatePath: string };
let certificate: X509Certificate;

function qzEnv(files: { privateKeyPath: string; certificatePath: string }) {
  return { QZ_PRIVATE_KEY_PATH: files.privateKeyPath, QZ_CERTIFICATE_PATH: files.certificatePath };
}

beforeAll(async () => {
  await addAuthTenant(env, 1);
  keyDir = await mkdtemp(path.join(tmpdir(), 'portal-qz-'));
  keys = await writePrintAgentKeyPair(keyDir);
  certificate = new X509Certificate(await readFile(keys.certificatePath));
  // The property test below signs far more than the 100 requests a minute of one user.
  app = await env.app(qzEnv(keys), { perUserMax: 100_000 });
  await register(app);
  token = (await login(app)).accessToken;
});

afterAll(async () => {
  await rm(keyDir, { recursive: true, force: true });
});

function signRequest(payload: unknown, headers: Record<string, string> = bearer(token)) {
  return app.inject({
    method: 'POST',
    url: '/backend/qz/sign',
    headers,
    payload: payload as object,
  });
}

function verifies(data: string, signature: string): boolean {
  return verify(
    'sha512',
    Buffer.from(data, 'utf8'),
    certificate.publicKey,
    Buffer.from(signature, 'base64'),
  );
}

describe('GET /qz/certificate', () => {
  it('answers the PEM certificate as cacheable text/plain, without a token, under both prefixes', async () => {
    for (const url of ['/backend/qz/certificate', '/qz/certificate']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.headers['cache-control']).toBe('public, max-age=3600');
      expect(response.headers.etag).toMatch(/^"[\w-]+"$/);
      expect(response.body).toBe(await readFile(keys.certificatePath, 'utf8'));
    }
  });

  it('parses as a self-signed X.509 certificate with a 2048-bit RSA key, signed with SHA-256', async () => {
    const response = await app.inject({ method: 'GET', url: '/backend/qz/certificate' });
    const served = new X509Certificate(response.body);
    expect(served.publicKey.asymmetricKeyType).toBe('rsa');
    expect(served.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(served.subject).toBe(served.issuer);
    expect(served.verify(served.publicKey)).toBe(true);
    expect(served.ca).toBe(true);
    const years =
      (Date.parse(served.validTo) - Date.parse(served.validFrom)) / (365.25 * 86_400_000);
    expect(Math.round(years)).toBe(10);
    // Signed with SHA-256: the algorithm appears twice in the DER (inside and outside the signed
    // part), and no other RSA signature algorithm (sha1, sha384, sha512: ...01 05/0c/0d) does.
    expect(occurrences(served.raw, SHA256_WITH_RSA_OID)).toBe(2);
    for (const last of ['05', '0c', '0d']) {
      const other = Buffer.from(`06092a864886f70d0101${last}`, 'hex');
      expect(occurrences(served.raw, other)).toBe(0);
    }
  });

  it.skipIf(openssl.skip)(
    openssl.title('openssl x509 reads it as a 2048-bit key signed with sha256WithRSAEncryption'),
    async () => {
      const response = await app.inject({ method: 'GET', url: '/backend/qz/certificate' });
      const file = path.join(keyDir, 'served.pem');
      await writeFile(file, response.body);
      const { stdout } = await openssl.run(['x509', '-in', file, '-noout', '-text']);
      expect(stdout).toContain('Public-Key: (2048 bit)');
      expect(stdout).toContain('sha256WithRSAEncryption');
    },
  );

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await app.inject({ method: 'GET', url: '/qz/certificate' });
    const etag = String(first.headers.etag);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await app.inject({
        method: 'GET',
        url: '/qz/certificate',
        headers: { 'if-none-match': ifNoneMatch },
      });
      expect(again.statusCode, ifNoneMatch).toBe(304);
      expect(again.body).toBe('');
    }
    const changed = await app.inject({
      method: 'GET',
      url: '/qz/certificate',
      headers: { 'if-none-match': '"other"' },
    });
    expect(changed.statusCode).toBe(200);
  });
});

describe('POST /qz/sign', () => {
  it('answers a base64 SHA512withRSA signature as text/plain, not cacheable', async () => {
    const data = '{"call":"printers.find","params":{},"timestamp":1763726400000}';
    const response = await signRequest({ data });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(response.body, 'base64')).toHaveLength(256);
    expect(verifies(data, response.body)).toBe(true);
    expect(verifies(`${data} `, response.body)).toBe(false);
  });

  it('every signature verifies with the served certificate, for arbitrary data', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 3000 }),
        async (data) => {
          const response = await signRequest({ data });
          expect(response.statusCode).toBe(200);
          expect(verifies(data, response.body)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the signature is RSA PKCS#1 v1.5 over the SHA-512 of the UTF-8 bytes (what openssl dgst -sha512 -verify checks)', async () => {
    const data = 'a8f5f167f44f4964e6c998dee827110c|ñandú €|{"printer":"\\\\srv\\HP"}\n';
    const response = await signRequest({ data });
    const signature = Buffer.from(response.body, 'base64');
    const key = { key: certificate.publicKey, padding: constants.RSA_PKCS1_PADDING };
    expect(verify('sha512', Buffer.from(data, 'utf8'), key, signature)).toBe(true);
    expect(verify('sha512', Buffer.from(`${data}x`, 'utf8'), key, signature)).toBe(false);
    expect(verify('sha256', Buffer.from(data, 'utf8'), key, signature)).toBe(false);
    // Opened with the public key, the signature is the DigestInfo of SHA-512 and the hash.
    expect(publicDecrypt(key, signature)).toEqual(
      Buffer.concat([SHA512_DIGEST_INFO, createHash('sha512').update(data, 'utf8').digest()]),
    );
  });

  it.skipIf(openssl.skip)(
    openssl.title('openssl dgst -sha512 -verify accepts the signature'),
    async () => {
      const data = 'a8f5f167f44f4964e6c998dee827110c|ñandú €|{"printer":"\\\\srv\\HP"}\n';
      const response = await signRequest({ data });
      const files = {
        publicKey: path.join(keyDir, 'public.pem'),
        data: path.join(keyDir, 'data.bin'),
        signature: path.join(keyDir, 'signature.bin'),
      };
      await writeFile(
        files.publicKey,
        certificate.publicKey.export({ type: 'spki', format: 'pem' }),
      );
      await writeFile(files.data, data, 'utf8');
      await writeFile(files.signature, Buffer.from(response.body, 'base64'));
      const verify = () =>
        openssl.run([
          'dgst',
          '-sha512',
          '-verify',
          files.publicKey,
          '-signature',
          files.signature,
          files.data,
        ]);
      const { stdout } = await verify();
      expect(stdout.trim()).toBe('Verified OK');
      await writeFile(files.data, `${data}x`, 'utf8');
      await expect(verify()).rejects.toThrow();
    },
  );

  it('signs many requests at once, each correctly', async () => {
    const data = Array.from({ length: 40 }, (_, i) => `request ${i} ${'x'.repeat(i * 50)}`);
    const responses = await Promise.all(data.map((text) => signRequest({ data: text })));
    responses.forEach((response, i) => expect(verifies(data[i] ?? '', response.body)).toBe(true));
  });

  it('accepts up to 64 KB and refuses more with 422 VALIDATION_ERROR', async () => {
    const largest = 'a'.repeat(65_536);
    const ok = await signRequest({ data: largest });
    expect(ok.statusCode).toBe(200);
    expect(verifies(largest, ok.body)).toBe(true);
    for (const data of ['a'.repeat(65_537), '€'.repeat(30_000)]) {
      const response = await signRequest({ data });
      expect(response.statusCode).toBe(422);
      expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    }
  });

  it.each([
    ['no data', {}],
    ['empty data', { data: '' }],
    ['data that is not text', { data: 42 }],
    ['data null', { data: null }],
    ['an unknown field', { data: 'x', hash: 'y' }],
    ['a JSON array', ['x']],
  ])('%s is 422 VALIDATION_ERROR', async (_name, payload) => {
    const response = await signRequest(payload);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(response.json<{ error: string }>().error).toContain('data');
  });

  it('a text/plain body is 415 and malformed JSON is 400, in the envelope', async () => {
    const text = await app.inject({
      method: 'POST',
      url: '/qz/sign',
      headers: { ...bearer(token), 'content-type': 'text/plain' },
      payload: 'to sign',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json()).toMatchObject({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
    const broken = await app.inject({
      method: 'POST',
      url: '/qz/sign',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: '{"data":',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
  });

  it('needs a valid access token (401 UNAUTHORIZED)', async () => {
    for (const headers of [{}, bearer('not-a-jwt'), bearer(`${token}x`)]) {
      const response = await signRequest({ data: 'x' }, headers);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    }
  });

  it('counts in the per-user limit of protected routes (429 RATE_LIMITED)', async () => {
    const limited = await env.app(qzEnv(keys), { perUserMax: 2 });
    const own = (await login(limited)).accessToken;
    const statuses = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await limited.inject({
        method: 'POST',
        url: '/qz/sign',
        headers: bearer(own),
        payload: { data: 'x' },
      });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('is documented in the OpenAPI document as text/plain answers', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs/json' });
    const paths = response.json<{ paths: Record<string, Record<string, unknown>> }>().paths;
    expect(paths['/qz/sign']?.post).toMatchObject({
      tags: ['impresion'],
      security: [{ bearerAuth: [] }],
      responses: { 200: { content: { 'text/plain': { schema: { type: 'string' } } } } },
    });
    expect(paths['/qz/certificate']?.get).toMatchObject({
      responses: { 200: { content: { 'text/plain': {} } } },
    });
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining(['/qz/print-config', '/qz/print-config/{id}']),
    );
  });
});

describe('without QZ_PRIVATE_KEY_PATH', () => {
  it('production starts, and both routes answer 503 PRINT_AGENT_NOT_CONFIGURED', async () => {
    const production = await env.app({ NODE_ENV: 'production', PORTAL_REQUIRE_HTTPS: 'false' });
    const own = (await login(production)).accessToken;
    const certificateResponse = await production.inject({
      method: 'GET',
      url: '/backend/qz/certificate',
    });
    expect(certificateResponse.statusCode).toBe(503);
    expect(certificateResponse.headers['cache-control']).toBeUndefined();
    expect(certificateResponse.json()).toEqual({
      success: false,
      error: expect.stringContaining('QZ_PRIVATE_KEY_PATH'),
      code: 'PRINT_AGENT_NOT_CONFIGURED',
    });
    const signResponse = await production.inject({
      method: 'POST',
      url: '/backend/qz/sign',
      headers: bearer(own),
      payload: { data: 'x' },
    });
    expect(signResponse.statusCode).toBe(503);
    expect(signResponse.json()).toMatchObject({ code: 'PRINT_AGENT_NOT_CONFIGURED' });
    // Authentication still comes first.
    const anonymous = await production.inject({
      method: 'POST',
      url: '/backend/qz/sign',
      payload: { data: 'x' },
    });
    expect(anonymous.statusCode).toBe(401);
    // Print configurations do not need the key.
    const configs = await production.inject({
      method: 'GET',
      url: '/backend/qz/print-config',
      headers: bearer(own),
    });
    expect(configs.statusCode).toBe(200);
  });
});

describe('loading the key pair at start', () => {
  it('refuses to start on an unreadable file, naming the variable', async () => {
    await expect(
      env.app(qzEnv({ ...keys, privateKeyPath: path.join(keyDir, 'missing.pem') })),
    ).rejects.toThrow(/QZ_PRIVATE_KEY_PATH/);
    await expect(
      env.app(qzEnv({ ...keys, certificatePath: path.join(keyDir, 'missing.pem') })),
    ).rejects.toThrow(/QZ_CERTIFICATE_PATH/);
  });

  it('refuses a file that is not a key or a certificate, and a certificate of another key', async () => {
    const other = await writePrintAgentKeyPair(path.join(keyDir, 'other'));
    await expect(env.app(qzEnv({ ...keys, privateKeyPath: keys.certificatePath }))).rejects.toThrow(
      /QZ_PRIVATE_KEY_PATH/,
    );
    await expect(env.app(qzEnv({ ...keys, certificatePath: keys.privateKeyPath }))).rejects.toThrow(
      /QZ_CERTIFICATE_PATH/,
    );
    await expect(
      env.app(qzEnv({ ...keys, certificatePath: other.certificatePath })),
    ).rejects.toThrow(/do not match/);
  });

  it('needs both variables or neither', () => {
    expect(() => env.config({ QZ_PRIVATE_KEY_PATH: keys.privateKeyPath })).toThrow(
      /QZ_PRIVATE_KEY_PATH and QZ_CERTIFICATE_PATH must be set together/,
    );
  });
});

describe('the documented browser snippet', () => {
  /** The ```js block of docs/print-agent.md, run against a stand-in for qz-tray.js. */
  async function readmeSnippet(): Promise<string> {
    const page = await readFile(fromRoot('docs', 'print-agent.md'), 'utf8');
    const snippet = /```js\n([\s\S]*?)```/.exec(page)?.[1];
    if (!snippet) throw new Error('docs/print-agent.md has no js snippet');
    return snippet;
  }

  it('points setCertificatePromise and setSignaturePromise at these routes, and they work', async () => {
    const snippet = await readmeSnippet();
    expect(snippet).toContain('qz.security.setCertificatePromise');
    expect(snippet).toContain("qz.security.setSignatureAlgorithm('SHA512')");
    expect(snippet).toContain('qz.security.setSignaturePromise');

    type Executor = (resolve: (value: string) => void, reject: (reason: unknown) => void) => void;
    const registered: {
      certificate?: Executor;
      signature?: (toSign: string) => Executor;
      algorithm?: string;
    } = {};
    const qz = {
      security: {
        setCertificatePromise: (executor: Executor) => (registered.certificate = executor),
        setSignatureAlgorithm: (algorithm: string) => (registered.algorithm = algorithm),
        setSignaturePromise: (factory: (toSign: string) => Executor) =>
          (registered.signature = factory),
      },
    };
    const requested: string[] = [];
    // fetch as the browser would do it, answered by the real app.
    const fetch = async (
      url: string,
      init: { method?: string; headers?: Record<string, string>; body?: string } = {},
    ) => {
      const { pathname } = new URL(url);
      requested.push(`${init.method ?? 'GET'} ${pathname}`);
      const response = await app.inject({
        method: init.method === 'POST' ? 'POST' : 'GET',
        url: pathname,
        ...(init.headers && { headers: init.headers }),
        ...(init.body !== undefined && { payload: init.body }),
      });
      return {
        ok: response.statusCode < 300,
        status: response.statusCode,
        text: () => Promise.resolve(response.body),
      };
    };
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the documentation's own code
    const runSnippet = new Function('qz', 'fetch', 'getAccessToken', snippet) as (
      qzTray: typeof qz,
      browserFetch: typeof fetch,
      getAccessToken: () => string,
    ) => void;
    runSnippet(qz, fetch, () => token);

    const { certificate: certificateExecutor, signature } = registered;
    if (!certificateExecutor || !signature) throw new Error('the snippet registered nothing');
    expect(registered.algorithm).toBe('SHA512');
    const pem = await new Promise<string>((resolve, reject) =>
      certificateExecutor(resolve, reject),
    );
    expect(new X509Certificate(pem).fingerprint256).toBe(certificate.fingerprint256);
    const toSign = '{"call":"print","timestamp":1763726400000,"hash":"9f86d081884c7d65"}';
    const signed = await new Promise<string>((resolve, reject) =>
      signature(toSign)(resolve, reject),
    );
    expect(verifies(toSign, signed)).toBe(true);
    expect(requested).toEqual(['GET /backend/qz/certificate', 'POST /backend/qz/sign']);
  });
});
