import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/platform/paths.js';
import { useTestEnvironment } from '../helpers/harness.js';

/*
 * The served OpenAPI document as other people's tools read it: Redocly's recommended rules, the
 * strictest common reader (swagger-parser and openapi-typescript accept much less).
 */

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; schema: Record<string, unknown> }[];
  responses: Record<string, unknown>;
}

interface Document {
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
}

/**
 * Operations with no client error to answer, so no 4xx is documented (Redocly's
 * operation-4xx-response warns about them; documenting one they never send would be false):
 * they take no parameters, no body and no token, and have no rate limit.
 */
const NO_CLIENT_ERROR = new Set(['GET /healthz', 'GET /readyz', 'GET /qz/certificate']);

const env = useTestEnvironment();
let app: FastifyInstance;
let document: Document;
let problems: Problem[];
let scratch: string;

const operations = () =>
  Object.entries(document.paths).flatMap(([route, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${route}`,
      operation,
    })),
  );

/** `redocly lint` (the devDependency) with the recommended rules; its JSON report's problems. */
async function redoclyLint(file: string): Promise<Problem[]> {
  const cli = fromRoot('node_modules', '@redocly', 'cli', 'bin', 'cli.js');
  const child = spawn(
    process.execPath,
    [cli, 'lint', '--extends=recommended', '--format=json', file],
    {
      cwd: scratch,
      // No usage report and no update check: the lint reads the file and nothing else.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  // Exit 1 means problems were found; the report is still there.
  if (code !== 0 && code !== 1) throw new Error(`redocly lint exited ${code}:\n${stderr}`);
  return (JSON.parse(stdout) as { problems: Problem[] }).problems;
}

beforeAll(async () => {
  app = await env.app();
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const response = await fetch(`${address}/docs/json`);
  expect(response.status).toBe(200);
  const text = await response.text();
  document = JSON.parse(text) as Document;
  scratch = await mkdtemp(path.join(tmpdir(), 'portal-openapi-'));
  const file = path.join(scratch, 'openapi.json');
  await writeFile(file, text);
  problems = await redoclyLint(file);
}, 120_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const describeProblems = (found: Problem[]) =>
  found.map(
    (problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`,
  );

describe('the OpenAPI document under Redocly’s recommended rules', () => {
  it('has no error', () => {
    expect(describeProblems(problems.filter((problem) => problem.severity === 'error'))).toEqual(
      [],
    );
  });

  // That each operationId is the route table's key is test/platform/route-table.test.ts's.
  it('names every operation: each route has an operationId, none twice', () => {
    const missing = operations()
      .filter(({ operation }) => operation.operationId === undefined)
      .map(({ key }) => key);
    expect(
      missing,
      'Operations without an operationId: declare each route from the route table (contract/routes.ts)',
    ).toEqual([]);
    expect(
      describeProblems(problems.filter((p) => p.ruleId.startsWith('operation-operationId'))),
    ).toEqual([]);
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents a client error (4xx) on every operation that can answer one', () => {
    const without = problems
      .filter((problem) => problem.ruleId === 'operation-4xx-response')
      .map((problem) => {
        const [, route = '', method = ''] =
          /^#\/paths\/(.+)\/([a-z]+)\/responses$/.exec(problem.location[0]?.pointer ?? '') ?? [];
        return `${method.toUpperCase()} ${route.replaceAll('~1', '/').replaceAll('~0', '~')}`;
      });
    expect(new Set(without)).toEqual(NO_CLIENT_ERROR);
  });

  it('declares the servers: this host, and the same routes under /backend', () => {
    expect(document.servers?.map((server) => server.url)).toEqual(['/', '/backend']);
  });

  it('public operations declare an empty security; protected ones the bearer token', () => {
    const security = Object.fromEntries(
      operations().map(({ key, operation }) => [key, operation.security]),
    );
    expect(security['POST /portal/auth/login']).toEqual([]);
    expect(security['GET /portal/pagos/{id}/resultado']).toEqual([]);
    expect(security['GET /portal/mi-cuenta']).toEqual([{ bearerAuth: [] }]);
    expect(operations().filter(({ operation }) => operation.security === undefined)).toEqual([]);
  });

  // That the route still refuses 1899-12-31 with 422 is test/statement/statement.test.ts's.
  it('the statement’s dates carry no Ajv keyword, and say their floor in words', () => {
    const parameters = document.paths['/portal/estado-cuenta']?.get?.parameters ?? [];
    expect(parameters.map((parameter) => parameter.name).sort()).toEqual(['desde', 'hasta']);
    for (const { schema } of parameters) {
      expect(schema).not.toHaveProperty('formatMinimum');
      expect(schema.format).toBe('date');
      expect(schema.description).toMatch(/Not before 1900-01-01\.$/);
    }
    expect(JSON.stringify(document)).not.toMatch(/"format(Exclusive)?(Minimum|Maximum)"/);
  });
});
