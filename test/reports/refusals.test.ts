import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReportsApp } from '../../src/reports/app.js';
import { portOf, rawRequest, sendRaw } from '../helpers/raw-http.js';

/*
 * The reports service answers what its router and Node's parser refuse as it answers the rest:
 * the error envelope, without the path (issue 48). A coupon id over 100 characters is the
 * router's refusal on its one route with a parameter.
 */

let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  app = await buildReportsApp({
    secret: 'reports-refusals-secret-0123456789abcdef',
    logLevel: 'silent',
    rendering: {
      statementWorkers: 1,
      statementQueue: 0,
      renderConcurrency: 1,
      renderQueue: 0,
      maxWaitMs: 1_000,
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = portOf(app.server);
});

afterAll(() => app.close());

const LONG_ID = `c${'7'.repeat(120)}`;

describe('the reports service’s refusals before routing', () => {
  for (const { name, line, status, code, secrets } of [
    {
      name: 'a coupon id over 100 characters',
      line: `GET /reports/cupones/${LONG_ID} HTTP/1.1`,
      status: 414,
      code: 'URI_TOO_LONG',
      secrets: [LONG_ID, '/reports/cupones'],
    },
    {
      name: 'a malformed %-escape',
      line: 'GET /reports/cupones/%zz HTTP/1.1',
      status: 400,
      code: 'INVALID_REQUEST',
      secrets: ['%zz', '/reports'],
    },
    {
      name: 'an unknown route',
      line: 'GET /reports/ninguno-4321 HTTP/1.1',
      status: 404,
      code: 'NOT_FOUND',
      secrets: ['ninguno-4321'],
    },
    {
      name: 'a method Node does not parse',
      line: 'FROB /reports/cupones/4321 HTTP/1.1',
      status: 400,
      code: 'INVALID_REQUEST',
      secrets: ['4321', 'FROB'],
    },
  ]) {
    it(`${name}: ${status} ${code} in the envelope, without the path`, async () => {
      const answer = await sendRaw(port, rawRequest(line));
      expect(answer.status, answer.body).toBe(status);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(answer.body)).toEqual({
        success: false,
        error: expect.any(String),
        code,
      });
      for (const secret of secrets) expect(answer.body, secret).not.toContain(secret);
    });
  }
});
