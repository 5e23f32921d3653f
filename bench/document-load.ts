import { request } from 'undici';
import { createServiceTokens } from '../src/platform/reports/token.js';
import { isLongDocument, LONG_DOCUMENTS } from './long-documents.js';

/**
 * The fairness bench's other customers, in a process of their own so that their uploads never
 * delay the receipt probe's requests on the client side: `LOOPS` customers each post the
 * `DOCUMENT` of bench/long-documents.ts (a 20,000-movement statement by default, or a
 * 1,990-line invoice) to the reports service at `REPORTS_URL` back to back until SIGTERM, then
 * print what they were answered as JSON ({ ok, busy, other }) and exit.
 */
const url = process.env.REPORTS_URL ?? '';
const tokens = createServiceTokens(process.env.REPORTS_SERVICE_SECRET ?? '');
const loops = Number(process.env.LOOPS ?? 1);
const name = process.env.DOCUMENT ?? 'statement';
if (!isLongDocument(name)) throw new Error(`DOCUMENT is statement or invoice, not ${name}`);
const document = LONG_DOCUMENTS[name];
const body = document.body();
const counts = { ok: 0, busy: 0, other: [] as string[] };
let stopped = false;

async function once(): Promise<void> {
  try {
    const answer = await request(`${url}${document.path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await tokens.issue({ tenant_id: 1, sucursal_id: 1 })}`,
      },
      body,
    });
    for await (const _chunk of answer.body) continue;
    if (answer.statusCode === 200) counts.ok += 1;
    else if (answer.statusCode === 503) counts.busy += 1;
    else counts.other.push(String(answer.statusCode));
  } catch (error) {
    counts.other.push(error instanceof Error ? error.message : String(error));
  }
}

const running = Array.from({ length: loops }, async () => {
  while (!stopped) await once();
});
process.on('SIGTERM', () => {
  stopped = true;
  void Promise.all(running).then(() => {
    process.stdout.write(`${JSON.stringify(counts)}\n`);
    process.exit(0);
  });
});
process.stdout.write('started\n');
