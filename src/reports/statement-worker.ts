import { getPriority, setPriority } from 'node:os';
import type { Readable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import { reportRoutes, type StatementReport } from '../../contract/reports.js';
import { AppError } from '../platform/errors.js';
import { compileBodyValidator } from '../platform/http/validation.js';
import { checkStatement, renderStatement } from './statement-report.js';
import type { FromWorker, ToWorker } from './statement-pool.js';

/*
 * A worker thread of the statement pool (src/reports/statement-pool.ts): it parses, validates,
 * checks and draws one statement at a time, off the service's event loop, and hands the PDF over
 * a chunk per `pull`, so it draws no further ahead than the reader reads (the stream's own
 * high-water mark, src/reports/pdf/paged-stream.ts).
 */

const port = parentPort;
if (!port) throw new Error('statement-worker.ts runs as a worker thread of the statement pool');

/**
 * The niceness of this thread: when the machine's cores are busy, the kernel gives the service's
 * own thread (receipts, coupons) its turn before this one's next slice of a statement. On Linux
 * a nice value is a thread's own, and setpriority(0) names the calling thread; elsewhere it
 * would lower the whole process, so it is left alone there.
 */
const STATEMENT_NICENESS = 10;
if (process.platform === 'linux') {
  try {
    // Never below the process's own priority (a service started with `nice -n 15` stays there):
    // an unprivileged thread may only raise its niceness, and a refusal must not kill the worker.
    setPriority(Math.max(getPriority(), STATEMENT_NICENESS));
  } catch {
    // Left at the process's priority: statements still render, only without the preference.
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

function start(id: number, body: Uint8Array): void {
  stop();
  let statement: StatementReport;
  try {
    statement = parse(body);
  } catch (error) {
    if (error instanceof AppError) send({ type: 'refused', id, message: error.message });
    // Anything else answers this request as a failure instead of ending the thread (a dead
    // worker is replaced only after a second, and every statement waits for it meanwhile).
    else
      send({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });
    return;
  }
  const stream = renderStatement(statement);
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

/** The reader went away: stop drawing, and be ready for the next statement. */
function stop(): void {
  current?.stream.destroy();
  current = undefined;
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'render') start(message.id, message.body);
  else if (message.type === 'pull') void pull(message.id);
  else if (current?.id === message.id) stop();
});
