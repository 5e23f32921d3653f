import type { FastifyBaseLogger } from 'fastify';
import { startReportsProcess } from '../src/platform/reports/supervisor.js';
import { createServiceTokens } from '../src/platform/reports/token.js';
import { measure, printComparison } from './measure.js';

/*
 * A PDF download through the portal against the same document rendered by calling the reports
 * service directly: what the API adds to a PDF. The receipt and the invoice benches differ only in
 * the document they prepare and the routes they call.
 */

export interface BenchPortal {
  url: string;
  token: string;
  reportsUrl: string;
  reportsSecret: string;
}

export interface PdfComparison {
  title: string;
  /** The portal's route, e.g. `/portal/pagos/12/recibo`, and the line's name. */
  portalPath: string;
  portalName: string;
  /** The reports service's route and the line's name. */
  reportsPath: string;
  reportsName: string;
  /** The JSON body the portal sends the reports service for that document. */
  body: string;
}

/**
 * Starts a reports process of the bench's own (production mode, silent), lets `prepare` write the
 * document and build the comparison, checks one request of each side, then measures both with 10
 * connections for 8 s and prints the ratio. A failed request fails the bench.
 */
export async function comparePdfDownloads(
  portal: BenchPortal,
  log: FastifyBaseLogger,
  prepare: () => Promise<PdfComparison>,
): Promise<void> {
  const reports = await startReportsProcess({
    url: portal.reportsUrl,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      REPORTS_URL: portal.reportsUrl,
      REPORTS_SERVICE_SECRET: portal.reportsSecret,
      LOG_LEVEL: 'silent',
    },
    log,
  });
  try {
    const comparison = await prepare();
    const serviceToken = await createServiceTokens(portal.reportsSecret).issue({
      tenant_id: 1,
      sucursal_id: 1,
    });
    const portalRequest = {
      url: `${portal.url}${comparison.portalPath}`,
      headers: { authorization: `Bearer ${portal.token}` },
    };
    const reportsRequest = {
      url: `${portal.reportsUrl}${comparison.reportsPath}`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${serviceToken}` },
      body: comparison.body,
    };
    // One of each first, so a refusal says why rather than only counting failed requests.
    for (const request of [reportsRequest, portalRequest]) {
      const answer = await fetch(request.url, request);
      if (answer.status !== 200) {
        throw new Error(`${request.url} answered ${answer.status}: ${await answer.text()}`);
      }
      await answer.arrayBuffer();
    }
    const run = { connections: 10, durationSeconds: 8 };
    const through = await measure(comparison.portalName, { ...portalRequest, ...run });
    const direct = await measure(comparison.reportsName, { ...reportsRequest, ...run });
    for (const side of [through, direct]) {
      if (side.non2xx + side.errors > 0) throw new Error(`${side.name}: failed requests`);
    }
    printComparison(comparison.title, through, direct);
  } finally {
    await reports.stop();
  }
}
