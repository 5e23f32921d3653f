import { getPriority, setPriority } from 'node:os';
import { Readable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import { reportRoutes, type StatementReport } from '../../contract/reports.js';
import { AppError } from '../platform/errors.js';
import { compileBodyValidator } from '../platform/http/validation.js';
import type { FromWorker, ToWorker } from './document-pool.js';
import { renderInvoice } from './invoice-report.js';
import { checkStatement, renderStatement } from './statement-report.js';

/*
 * A worker thread of the document pool (src/reports/document-pool.ts): it draws one long
 * document at a time, off the service's event loop, and hands the PDF over a chunk per `pull`.
 * A statement is parsed, validated and checked here, and drawn no further ahead than the reader
 * reads (the stream's own high-water mark, src/reports/pdf/paged-stream.ts); an invoice comes
 * validated and is drawn whole, since its pages are numbered once all are drawn.
 */

const port = parentPort;
if (!port) throw new Error('document-worker.ts runs as a worker thread of the document pool');

/**
 * The niceness of this thread: when the machine's cores are busy, the kernel gives the service's
 * own thread (receipts, coupons, short invoices) its turn before this one's next slice of a long
 * document. On Linux a nice value is a thread's own, and setpriority(0) names the calling
 * thread; elsewhere it would lower the whole process, so it is left alone there.
 */
const WORKER_NICENESS = 10;
if (process.platform === 'linux') {
  try {
    // Never below the process's own priority (a service started with `nice -n 15` stays there):
    // an unprivileged thread may only raise its niceness, and a refusal must not kill the worker.
    setPriority(Math.max(getPriority(), WORKER_NICENESS));
  } catch {
    // Left at the process's priority: documents still render, only without the preference.
  }
}

// The table's body for the route, validated here rather than by the route (its body comes raw).
const validate = compileBodyValidator(reportRoutes.statement.body);

const send = (message: FromWorker, transfer: ArrayBuffer[] = []) =>
  port.postMessage(message, transfer);

interface Job {
  id: number;
  stream: Readable;
  chunks: AsyncIterator<unknown>;
  pulling: boolean;
}
let current: Job | undefined;

/** The body as the route would have refused it: the same codes and words as Fastify's. */
function parse(body: Uint8Array): StatementReport {
  if (body.byteLength === 0) throw new AppError('INVALID_REQUEST', 'El cuerpo JSON está vacío');
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    throw new AppError('INVALID_REQUEST', 'El cuerpo no es JSON válido');
  }
  const problem = validate(data);
  if (problem !== undefined) throw new AppError('INVALID_REQUEST', problem);
  const statement = data as StatementReport;
  checkStatement(statement);
  return statement;
}

/** The id of the render asked for last: an invoice drawn for one cancelled meanwhile is dropped. */
let latest = 0;

/** The job's PDF as a stream, or undefined once its refusal or failure was answered. */
async function open(message: Extract<ToWorker, { type: 'render' }>): Promise<Readable | undefined> {
  const { id } = message;
  try {
    if (message.kind === 'invoice') {
      return Readable.from([await renderInvoice(message.data)]);
    }
    return renderStatement(parse(message.body));
  } catch (error) {
    if (error instanceof AppError) send({ type: 'refused', id, message: error.message });
    // Anything else answers this request as a failure instead of ending the thread (a dead
    // worker is replaced only after a second, and every document waits for it meanwhile).
    else
      send({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

async function start(message: Extract<ToWorker, { type: 'render' }>): Promise<void> {
  stop();
  const { id } = message;
  latest = id;
  const stream = await open(message);
  if (!stream) return;
  if (latest !== id) {
    stream.destroy();
    return;
  }
  current = { id, stream, chunks: stream[Symbol.asyncIterator](), pulling: false };
  send({ type: 'started', id });
}

async function pull(id: number): Promise<void> {
  const job = current;
  if (!job || job.id !== id || job.pulling) return;
  job.pulling = true;
  try {
    const next = await job.chunks.next();
    if (current !== job) return;
    if (next.done === true) {
      current = undefined;
      send({ type: 'end', id });
      return;
    }
    // A copy of its own, handed over without another: pdfkit's chunks may share a pooled buffer.
    const bytes = new Uint8Array(next.value as Buffer);
    send({ type: 'chunk', id, bytes }, [bytes.buffer]);
  } catch (error) {
    if (current !== job) return;
    current = undefined;
    send({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });
  } finally {
    job.pulling = false;
  }
}

/** The reader went away: stop drawing, and be ready for the next document. */
function stop(): void {
  current?.stream.destroy();
  current = undefined;
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'render') void start(message);
  else if (message.type === 'pull') void pull(message.id);
  else {
    if (latest === message.id) latest = 0;
    if (current?.id === message.id) stop();
  }
});
