import { describe, expect, it } from 'vitest';
import { reportRoutes } from '../../../contract/reports.js';
import { buildReportsApp } from '../../../src/reports/app.js';

/*
 * The reports service's route table (contract/reports.ts) is the service's own: each entry is a
 * route it declares, with the entry's method and path, so the API's client, which calls through
 * the same table, reaches every route it names.
 */

describe('the reports route table', () => {
  it('names routes the service declares, each with its method and path', async () => {
    const app = await buildReportsApp({
      secret: 'route-table-secret-0123456789abcdef',
      logLevel: 'silent',
      rendering: {
        statementWorkers: 1,
        statementQueue: 0,
        renderConcurrency: 1,
        renderQueue: 0,
        maxWaitMs: 1_000,
      },
    });
    try {
      for (const [key, route] of Object.entries(reportRoutes)) {
        expect(app.hasRoute({ method: route.method, url: route.path }), key).toBe(true);
      }
    } finally {
      await app.close();
    }
  });
});
