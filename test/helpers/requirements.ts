import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

/*
 * What a test run needs besides Node and PostgreSQL, decided once by global set-up
 * (test/setup/global-setup.ts) and read here by the tests: Redis for the shared rate-limit
 * counters and session ends, openssl as a second reader of the print agent's signatures, and in
 * CI the run's own PostgreSQL. In CI (`CI` set, as .ci/run sets it) anything missing fails the
 * run before a test starts. Elsewhere (`npm test` on a fresh machine) the tests that need it are
 * skipped, with the reason in their names, and set-up prints what it skipped and why.
 */

/** Found (`value`: Redis's URL, openssl's version line, the database URL) or why not. */
export type Finding = { value: string } | { missing: string };

export interface RunRequirements {
  /** REDIS_URL, when Redis answers PING there. */
  redis: Finding;
  /** `openssl version`, when the binary is on the PATH. */
  openssl: Finding;
  /** TEST_DATABASE_URL; outside CI an embedded PostgreSQL stands in for it. */
  database: Finding;
  /**
   * pdftoppm (poppler-utils) and zbarimg (zbar-tools), which read an invoice's ARCA QR back from
   * its PDF at 300 dpi, as a phone would: their versions, when both are on the PATH.
   */
  qrTools: Finding;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** What global set-up found on this machine (requireRedis, requireOpenssl). */
    requirements: RunRequirements;
  }
}

const run = promisify(execFile);

/** `CI` set to anything but '', 'false' or '0' (CI services set CI=true; .ci/run does too). */
export function isCiRun(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase() ?? '';
  return value !== '' && value !== 'false' && value !== '0';
}

async function findRedis(url: string | undefined): Promise<Finding> {
  if (!url) return { missing: 'REDIS_URL is not set' };
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 3_000,
  });
  // The connection's own error (ECONNREFUSED, ENOTFOUND...) says more than the rejection.
  let cause: unknown;
  redis.on('error', (error) => (cause ??= error));
  try {
    await redis.connect();
    await redis.ping();
    return { value: url };
  } catch (error) {
    const first: unknown = cause ?? error;
    const reason = first instanceof Error ? first.message : String(first);
    return { missing: `Redis at REDIS_URL (${url}) does not answer PING: ${reason}` };
  } finally {
    redis.disconnect();
  }
}

async function findOpenssl(): Promise<Finding> {
  try {
    const { stdout } = await run('openssl', ['version']);
    return { value: stdout.trim() };
  } catch {
    return { missing: 'openssl is not on the PATH' };
  }
}

async function findQrTools(): Promise<Finding> {
  const missing: string[] = [];
  const found: string[] = [];
  for (const [tool, args, pkg] of [
    ['pdftoppm', ['-v'], 'poppler-utils'],
    ['zbarimg', ['--version'], 'zbar-tools'],
  ] as const) {
    try {
      // pdftoppm prints its version on stderr, zbarimg on stdout.
      const { stdout, stderr } = await run(tool, [...args]);
      found.push(`${tool} ${(stdout || stderr).trim().split('\n')[0] ?? ''}`);
    } catch {
      missing.push(`${tool} (${pkg})`);
    }
  }
  return missing.length === 0
    ? { value: found.join('; ') }
    : { missing: `${missing.join(' and ')} not on the PATH` };
}

/** Looks at this machine once (global set-up): REDIS_URL answering PING, openssl, the database. */
export async function findRequirements(
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunRequirements> {
  const databaseUrl = env.TEST_DATABASE_URL?.trim();
  const [redis, openssl, qrTools] = await Promise.all([
    findRedis(env.REDIS_URL?.trim()),
    findOpenssl(),
    findQrTools(),
  ]);
  return {
    redis,
    openssl,
    qrTools,
    database: databaseUrl ? { value: databaseUrl } : { missing: 'TEST_DATABASE_URL is not set' },
  };
}

/**
 * What set-up does with the findings: in CI anything missing throws, naming each thing; elsewhere
 * answers the note to print about what is skipped (undefined when nothing is).
 */
export function judgeRequirements(found: RunRequirements, ci: boolean): string | undefined {
  const missing = (Object.values(found) as Finding[]).flatMap((finding) =>
    'missing' in finding ? [finding.missing] : [],
  );
  if (ci && missing.length > 0) {
    throw new Error(
      [
        'This CI run (CI is set) lacks what its tests need, and CI skips none of them:',
        ...missing.map((reason) => `  - ${reason}`),
        'Set TEST_DATABASE_URL and REDIS_URL to running services (.ci/run does) and install openssl,',
        'poppler-utils and zbar-tools (.ci/run installs them when missing).',
      ].join('\n'),
    );
  }
  const skipped = [
    ...('missing' in found.redis ? [`the Redis-backed tests (${found.redis.missing})`] : []),
    ...('missing' in found.openssl ? [`the openssl checks (${found.openssl.missing})`] : []),
    ...('missing' in found.qrTools ? [`the invoice QR reads (${found.qrTools.missing})`] : []),
  ];
  if (skipped.length === 0) return undefined;
  return `Not a CI run: skipping ${skipped.join(' and ')}. CI runs them and fails without them.`;
}

/** Something some tests need: there, or why those tests are skipped here. */
export interface Requirement {
  /** Why the tests that need it are skipped on this machine; undefined when it is there. */
  readonly skip: string | undefined;
  /** A test's or suite's name, with ` [skipped: why]` added where it is skipped. */
  title(name: string): string;
}

export interface RedisRequirement extends Requirement {
  /** REDIS_URL; throws where Redis is missing (use it inside the skipped suite only). */
  readonly url: string;
}

export interface OpensslRequirement extends Requirement {
  /** Runs `openssl <args>`; rejects on a non-zero exit, and where openssl is missing. */
  run(args: string[]): Promise<{ stdout: string; stderr: string }>;
}

function skipOf(finding: Finding): string | undefined {
  return 'missing' in finding ? finding.missing : undefined;
}

function titleFor(skip: string | undefined): (name: string) => string {
  return (name) => (skip === undefined ? name : `${name} [skipped: ${skip}]`);
}

/** Redis for the tests that need one: `describe.skipIf(redis.skip)(redis.title('...'), ...)`. */
export function requireRedis(): RedisRequirement {
  const found = inject('requirements').redis;
  const skip = skipOf(found);
  return {
    skip,
    title: titleFor(skip),
    get url() {
      if ('missing' in found) throw new Error(`Redis is not available here: ${found.missing}`);
      return found.value;
    },
  };
}

/** openssl for the tests that check with it: `it.skipIf(openssl.skip)(openssl.title('...'), ...)`. */
export function requireOpenssl(): OpensslRequirement {
  const found = inject('requirements').openssl;
  const skip = skipOf(found);
  return {
    skip,
    title: titleFor(skip),
    run(args) {
      if ('missing' in found) {
        return Promise.reject(new Error(`openssl is not available here: ${found.missing}`));
      }
      return run('openssl', args);
    },
  };
}

export interface QrToolsRequirement extends Requirement {
  /**
   * The texts of the QR codes on page `page` (1-based) of `pdf`, read as a phone would: the page
   * rasterised at 300 dpi by pdftoppm, then decoded by zbarimg. Rejects where the tools are missing.
   */
  readQrCodes(pdf: Buffer, page?: number): Promise<string[]>;
}

/** pdftoppm and zbarimg: `it.skipIf(qr.skip)(qr.title('...'), ...)`; CI fails without them. */
export function requireQrTools(): QrToolsRequirement {
  const found = inject('requirements').qrTools;
  const skip = skipOf(found);
  return {
    skip,
    title: titleFor(skip),
    async readQrCodes(pdf, page = 1) {
      if ('missing' in found) throw new Error(`QR tools are not available here: ${found.missing}`);
      const dir = await mkdtemp(path.join(tmpdir(), 'portal-qr-'));
      try {
        await writeFile(path.join(dir, 'doc.pdf'), pdf);
        const image = path.join(dir, 'page');
        const pageText = String(page);
        await run('pdftoppm', [
          '-r',
          '300',
          '-png',
          '-singlefile',
          '-f',
          pageText,
          '-l',
          pageText,
          path.join(dir, 'doc.pdf'),
          image,
        ]);
        // --raw: each symbol's text alone, one a line; exit 4 means no symbol found.
        const { stdout } = await run('zbarimg', ['--quiet', '--raw', `${image}.png`]);
        return stdout.split('\n').filter((line) => line !== '');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
