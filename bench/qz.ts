import { generateKeyPair, sign, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Fastify from 'fastify';
import { writePrintAgentKeyPair } from '../src/modules/print/index.js';
import {
  eventLoopUnder,
  measure,
  poolRate,
  printComparison,
  printTable,
  rawRate,
} from './measure.js';

/**
 * QZ Tray signing: POST /qz/sign (JWT, JSON body, SHA512withRSA on libuv's pool) against a bare
 * Fastify route doing the same signature without auth, the machine's raw rate of those
 * signatures with the pool kept full, and the event loop's latency (a light /healthz probe)
 * while signing saturates the CPU.
 */

/** About what QZ Tray hands to setSignaturePromise for one print call. */
const TO_SIGN = JSON.stringify({
  call: 'print',
  params: { printer: { name: 'HP LaserJet 400' }, options: { copies: 1, size: 'A4' } },
  timestamp: 1763726400000,
  uid: 'a1b2c3',
  hash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
});

/** A key pair for the benchmark's portal (production config): its env, files removed at exit. */
export async function qzBenchKeys(): Promise<Record<string, string>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'portal-bench-qz-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const files = await writePrintAgentKeyPair(dir);
  return { QZ_PRIVATE_KEY_PATH: files.privateKeyPath, QZ_CERTIFICATE_PATH: files.certificatePath };
}

const signAsync = promisify(
  (data: Buffer, key: KeyObject, done: (error: Error | null, signature: Buffer) => void) =>
    sign('sha512', data, key, done),
);

const newRsaKey = async () =>
  (await promisify(generateKeyPair)('rsa', { modulusLength: 2048 })).privateKey;

/** RSA-2048 SHA-512 signatures per second with the libuv pool kept full, as the route keeps it. */
async function rawSignRate(seconds: number): Promise<number> {
  const privateKey = await newRsaKey();
  const data = Buffer.from(TO_SIGN);
  return poolRate(seconds, () => signAsync(data, privateKey));
}

/** One signature checked against the served certificate: the load below measures real work. */
async function checkOneSignature(portalUrl: string, token: string): Promise<void> {
  const certificate = await fetch(`${portalUrl}/backend/qz/certificate`);
  if (!certificate.ok) throw new Error(`GET /qz/certificate answered ${certificate.status}`);
  const publicKey = new X509Certificate(await certificate.text()).publicKey;
  const signed = await fetch(`${portalUrl}/backend/qz/sign`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ data: TO_SIGN }),
  });
  const signature = Buffer.from(await signed.text(), 'base64');
  if (!signed.ok || !verify('sha512', Buffer.from(TO_SIGN), publicKey, signature)) {
    throw new Error(`POST /qz/sign answered ${signed.status} or a signature that does not verify`);
  }
}

/** The same signature behind a bare route: what HTTP plus the signature cost here. */
async function startBaseline(): Promise<{ url: string; close: () => Promise<void> }> {
  const privateKey = await newRsaKey();
  const baseline = Fastify();
  baseline.post<{ Body: { data: string } }>('/sign', async (request, reply) => {
    const signature = await signAsync(Buffer.from(request.body.data, 'utf8'), privateKey);
    return reply.type('text/plain; charset=utf-8').send(signature.toString('base64'));
  });
  const url = await baseline.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => baseline.close() };
}

export async function qzSigning(portalUrl: string, token: string): Promise<void> {
  await checkOneSignature(portalUrl, token);
  const raw = await rawSignRate(5);
  const signLoad = (name: string, url = `${portalUrl}/backend/qz/sign`) =>
    measure(name, {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ data: TO_SIGN }),
      connections: 16,
      durationSeconds: 8,
    });
  const signs = await signLoad('portal POST /qz/sign');
  const baseline = await startBaseline();
  const bare = await signLoad(
    'bare fastify, same signature, no auth',
    `${baseline.url}/sign`,
  ).finally(() => baseline.close());
  if (signs.non2xx > 0 || signs.errors > 0) {
    throw new Error(`POST /qz/sign: ${signs.non2xx} non-2xx answers, ${signs.errors} errors`);
  }
  const [healthUnderLoad, idleHealth] = await eventLoopUnder(portalUrl, 'signing', () =>
    signLoad('signatures (background)'),
  );
  const rawRow = rawRate('raw crypto.sign sha512 RSA-2048 (pool)', raw);
  printComparison('QZ Tray signatures (16 connections) against a bare route', signs, bare);
  printComparison('QZ Tray signatures against the machine’s RSA signing rate', signs, rawRow);
  printTable('Event loop while signatures saturate the CPU', [healthUnderLoad, idleHealth]);
}
