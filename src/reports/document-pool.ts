import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { FastifyBaseLogger } from 'fastify';
import type { InvoiceReport } from '../../contract/reports.js';
import { AppError } from '../platform/errors.js';

/** A long document for a worker to draw. */
export type DocumentJob =
  /** A statement's request body, as it came (the worker parses and checks it). */
  | { kind: 'statement'; body: Buffer }
  /** A long invoice, debit or credit note, already validated by its route. */
  | { kind: 'invoice'; data: InvoiceReport };

/** What the service's thread tells a worker. */
export type ToWorker =
  | { type: 'render'; id: number; kind: 'statement'; body: Uint8Array }
  | { type: 'render'; id: number; kind: 'invoice'; data: InvoiceReport }
  /** The reader has room: the next chunk, please. */
  | { type: 'pull'; id: number }
  /** The reader went away. */
  | { type: 'cancel'; id: number };

/** What a worker answers, about the job `id`. */
export type FromWorker =
  | { type: 'refused'; id: number; message: string }
  | { type: 'started'; id: number }
  | { type: 'chunk'; id: number; bytes: Uint8Array }
  | { type: 'end'; id: number }
  | { type: 'failed'; id: number; message: string };

/** pdf/paged-stream.ts's mark: what may wait unread on this side too. */
const HIGH_WATER_MARK = 64 * 1024;

/** How long a dead worker's replacement waits: a worker that cannot start does not spin. */
const RESPAWN_DELAY_MS = 1_000;

// The worker's module beside this one, in its language: `.ts` under tsx, `.js` compiled (as
// supervisor.ts finds main).
const EXTENSION = import.meta.url.slice(import.meta.url.lastIndexOf('.'));
const WORKER = new URL(`./document-worker${EXTENSION}`, import.meta.url);

/**
 * A worker thread on the worker's module. Under tsx (development, `.ts`), Node 20 does not carry
 * the loader tsx registered into a worker thread, so the thread registers it before importing
 * the module; compiled (production) it is the module itself, and tsx is never loaded.
 */
function startWorker(): Worker {
  if (EXTENSION !== '.ts') return new Worker(WORKER);
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(WORKER.href)}); });`;
  return new Worker(code, { eval: true });
}

export interface DocumentPool {
  /**
   * Draws `job` in a worker thread, and resolves with its PDF as a stream once the worker has
   * accepted it: a statement is parsed, validated and checked there first, and rejects with 400
   * INVALID_REQUEST, Fastify's own words, when it is not accepted; an invoice is drawn whole
   * before its first byte. Waits for a free worker: the route's queue (render-queue.ts) keeps
   * the waiting bounded.
   */
  render(job: DocumentJob): Promise<Readable>;
  close(): Promise<void>;
}

interface Slot {
  worker: Worker;
  /** The job being answered, while the worker has one. */
  job: ((message: FromWorker) => void) | undefined;
  jobId: number;
  /** Fails the job when the worker dies under it. */
  abort: ((error: Error) => void) | undefined;
}

/**
 * `size` worker threads that draw the long documents (docs/receipts.md "Rendering in turn"):
 * pdfkit draws synchronously, and a 20,000-movement statement is seconds of CPU plus tens of
 * milliseconds of JSON.parse and validation in one piece, a 2,000-line invoice about a second;
 * here none of it runs on the service's event loop, so receipts, coupons and short invoices,
 * drawn there, never wait behind one. A worker that dies is replaced; its document fails (a cut
 * stream, which the API answers 502).
 */
export function createDocumentPool(size: number, log: FastifyBaseLogger): DocumentPool {
  let nextId = 1;
  let closing = false;
  const slots: Slot[] = [];
  const idle: Slot[] = [];
  const waiting: ((slot: Slot) => void)[] = [];

  function spawn(): Slot {
    const slot: Slot = {
      worker: startWorker(),
      job: undefined,
      jobId: 0,
      abort: undefined,
    };
    slot.worker.on('message', (message: FromWorker) => {
      if (message.id === slot.jobId) slot.job?.(message);
    });
    slot.worker.on('error', (error) => {
      log.error({ err: error }, 'document worker failed');
    });
    slot.worker.on('exit', (code) => {
      const index = slots.indexOf(slot);
      if (index >= 0) slots.splice(index, 1);
      const idleAt = idle.indexOf(slot);
      if (idleAt >= 0) idle.splice(idleAt, 1);
      slot.abort?.(new Error(`the document worker exited (${code})`));
      if (closing) return;
      log.error({ code }, 'document worker exited; starting another');
      setTimeout(() => {
        if (!closing) release(spawn());
      }, RESPAWN_DELAY_MS).unref();
    });
    slots.push(slot);
    return slot;
  }

  function release(slot: Slot): void {
    slot.job = undefined;
    slot.abort = undefined;
    slot.jobId = 0;
    if (!slots.includes(slot)) return;
    const next = waiting.shift();
    if (next) next(slot);
    else idle.push(slot);
  }

  function acquire(): Promise<Slot> {
    const slot = idle.shift();
    if (slot) return Promise.resolve(slot);
    return new Promise((resolve) => waiting.push(resolve));
  }

  for (let n = 0; n < size; n += 1) idle.push(spawn());

  /** The job's render message, and what it hands over rather than copies. */
  function renderMessage(id: number, job: DocumentJob): [ToWorker, ArrayBuffer[]] {
    // An invoice's object is copied (structured clone: about a millisecond for 2,000 lines).
    if (job.kind === 'invoice')
      return [{ type: 'render', id, kind: 'invoice', data: job.data }, []];
    const { body } = job;
    // Handed over, not copied, when the body has its buffer to itself (a large body read whole
    // does); a small one may sit in Node's shared pool, and is copied first.
    const whole = body.buffer instanceof ArrayBuffer && body.byteOffset === 0;
    const bytes =
      whole && body.byteLength === body.buffer.byteLength
        ? new Uint8Array(body.buffer, 0, body.byteLength)
        : new Uint8Array(body);
    return [{ type: 'render', id, kind: 'statement', body: bytes }, [bytes.buffer]];
  }

  async function render(job: DocumentJob): Promise<Readable> {
    const slot = await acquire();
    const id = nextId++;
    slot.jobId = id;

    return new Promise<Readable>((resolve, reject) => {
      let pulling = false;
      let ended = false;
      /** Whether the stream was handed out: before that, a failure is the promise's. */
      let started = false;
      const finish = () => {
        if (ended) return;
        ended = true;
        release(slot);
      };
      const output = new Readable({
        highWaterMark: HIGH_WATER_MARK,
        read() {
          if (pulling || ended) return;
          pulling = true;
          slot.worker.postMessage({ type: 'pull', id } satisfies ToWorker);
        },
        destroy(error, callback) {
          if (!ended) {
            slot.worker.postMessage({ type: 'cancel', id } satisfies ToWorker);
            finish();
          }
          callback(error);
        },
      });

      slot.abort = (error) => {
        if (ended) return;
        ended = true;
        if (started) output.destroy(error);
        else reject(error);
      };
      slot.job = (message) => {
        switch (message.type) {
          case 'refused':
            finish();
            reject(new AppError('INVALID_REQUEST', message.message));
            return;
          case 'started':
            started = true;
            resolve(output);
            return;
          case 'chunk':
            pulling = false;
            output.push(
              Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength),
            );
            return;
          case 'end':
            finish();
            output.push(null);
            return;
          case 'failed': {
            finish();
            const error = new Error(`${job.kind} render failed: ${message.message}`);
            // Before its first byte the caller still waits for the stream: it gets the error.
            if (started) output.destroy(error);
            else reject(error);
            return;
          }
        }
      };
      slot.worker.postMessage(...renderMessage(id, job));
    });
  }

  return {
    render,
    async close() {
      closing = true;
      await Promise.all(slots.map((slot) => slot.worker.terminate()));
    },
  };
}
