import { verify, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDevPrintAgentKeys } from '../../src/dev/print-agent-keys.js';
import { addAuthTenant, bearer, login, register } from '../helpers/auth.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { childEnv, runNode, startNode } from '../helpers/processes.js';

const env = useTestEnvironment();
// Empty until the set-up made it: a failed set-up is then the one error to read.
let scratch = '';

beforeAll(async () => {
  await addAuthTenant(env, 1);
  scratch = await mkdtemp(path.join(tmpdir(), 'portal-qz-keygen-'));
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const noQz = { QZ_PRIVATE_KEY_PATH: undefined, QZ_CERTIFICATE_PATH: undefined };

describe('npm run cli -- qz keygen', () => {
  it('writes a key (mode 600) and a self-signed RSA-2048 certificate the API then signs with', async () => {
    const out = path.join(scratch, 'cli');
    const result = await runNode(
      'src/cli.ts',
      ['qz', 'keygen', '--out', out, '--cn', 'Ferretería Sur S.A.'],
      childEnv(noQz),
    );
    expect(result.code, result.output).toBe(0);
    const privateKeyPath = path.join(out, 'private-key.pem');
    const certificatePath = path.join(out, 'certificate.pem');
    expect(result.output).toContain(`QZ_PRIVATE_KEY_PATH=${privateKeyPath}`);
    expect(result.output).toContain(`QZ_CERTIFICATE_PATH=${certificatePath}`);
    expect((await stat(privateKeyPath)).mode & 0o777).toBe(0o600);

    const certificate = new X509Certificate(await readFile(certificatePath));
    expect(certificate.subject).toContain('CN=Ferretería Sur S.A.');
    expect(certificate.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(certificate.verify(certificate.publicKey)).toBe(true);

    const app = await env.app({
      QZ_PRIVATE_KEY_PATH: privateKeyPath,
      QZ_CERTIFICATE_PATH: certificatePath,
    });
    await register(app);
    const token = (await login(app)).accessToken;
    const served = await app.inject({ method: 'GET', url: '/backend/qz/certificate' });
    expect(new X509Certificate(served.body).fingerprint256).toBe(certificate.fingerprint256);
    const signed = await app.inject({
      method: 'POST',
      url: '/backend/qz/sign',
      headers: bearer(token),
      payload: { data: 'hola' },
    });
    expect(
      verify(
        'sha512',
        Buffer.from('hola'),
        certificate.publicKey,
        Buffer.from(signed.body, 'base64'),
      ),
    ).toBe(true);
  }, 60_000);

  it('never replaces an existing pair unless --force', async () => {
    const out = path.join(scratch, 'twice');
    const first = await runNode('src/cli.ts', ['qz', 'keygen', '--out', out], childEnv(noQz));
    expect(first.code, first.output).toBe(0);
    const before = await readFile(path.join(out, 'private-key.pem'), 'utf8');

    const refused = await runNode('src/cli.ts', ['qz', 'keygen', '--out', out], childEnv(noQz));
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('--force');
    expect(await readFile(path.join(out, 'private-key.pem'), 'utf8')).toBe(before);

    const forced = await runNode(
      'src/cli.ts',
      ['qz', 'keygen', '--out', out, '--force'],
      childEnv(noQz),
    );
    expect(forced.code, forced.output).toBe(0);
    expect(await readFile(path.join(out, 'private-key.pem'), 'utf8')).not.toBe(before);
  }, 60_000);
});

describe('development defaults', () => {
  it('generate a pair under <data dir>/qz once, and keep it', async () => {
    const dataDir = path.join(scratch, 'data');
    const env1 = await withDevPrintAgentKeys({ NODE_ENV: 'development' }, dataDir);
    expect(env1).toMatchObject({
      QZ_PRIVATE_KEY_PATH: path.join(dataDir, 'qz', 'private-key.pem'),
      QZ_CERTIFICATE_PATH: path.join(dataDir, 'qz', 'certificate.pem'),
    });
    const certificate = await readFile(path.join(dataDir, 'qz', 'certificate.pem'), 'utf8');
    const env2 = await withDevPrintAgentKeys({}, dataDir);
    expect(env2).toEqual({
      QZ_PRIVATE_KEY_PATH: env1.QZ_PRIVATE_KEY_PATH,
      QZ_CERTIFICATE_PATH: env1.QZ_CERTIFICATE_PATH,
    });
    expect(await readFile(path.join(dataDir, 'qz', 'certificate.pem'), 'utf8')).toBe(certificate);
  });

  it('leave production and configured paths alone', async () => {
    const dataDir = path.join(scratch, 'untouched');
    expect(await withDevPrintAgentKeys({ NODE_ENV: 'production' }, dataDir)).toEqual({
      NODE_ENV: 'production',
    });
    const configured = {
      QZ_PRIVATE_KEY_PATH: '/etc/qz/key.pem',
      QZ_CERTIFICATE_PATH: '/etc/qz/c.pem',
    };
    expect(await withDevPrintAgentKeys(configured, dataDir)).toEqual(configured);
    await expect(stat(dataDir)).rejects.toThrow();
  });

  it('npm start without QZ_* serves the pair it generated under PORTAL_DATA_DIR', async () => {
    const dataDir = path.join(scratch, 'start');
    const server = startNode(
      'src/server.ts',
      [],
      childEnv({
        ...noQz,
        DATABASE_URL: env.systemUrl,
        PORTAL_DATA_DIR: dataDir,
        PORT: '0',
        LOG_LEVEL: 'warn',
      }),
    );
    try {
      const [, url] = await server.waitFor(/Portal API\s+(http:\/\/\S+)/);
      const response = await fetch(`${url}/backend/qz/certificate`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(
        await readFile(path.join(dataDir, 'qz', 'certificate.pem'), 'utf8'),
      );
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited()).toBe(0);
    }
  }, 60_000);
});
