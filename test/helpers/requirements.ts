import { execFile } from 'node:child_process';
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

/** Looks at this machine once (global set-up): REDIS_URL answering PING, openssl, the database. */
export async function findRequirements(
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunRequirements> {
  const databaseUrl = env.TEST_DATABASE_URL?.trim();
  const [redis, openssl] = await Promise.all([findRedis(env.REDIS_URL?.trim()), findOpenssl()]);
  return {
    redis,
    openssl,
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
        'Set TEST_DATABASE_URL and REDIS_URL to running services (.ci/run does) and install openssl.',
      ].join('\n'),
    );
  }
  const skipped = [
    ...('missing' in found.redis ? [`the Redis-backed tests (${found.redis.missing})`] : []),
    ...('missing' in found.openssl ? [`the openssl checks (${found.openssl.missing})`] : []),
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
