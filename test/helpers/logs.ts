import { Writable } from 'node:stream';
import { loggerOptions } from '../../src/platform/http/logger.js';

/** The production logger options writing into `lines`, for an app whose logs a test reads. */
export function capturedLogs(level: 'info' | 'warn' = 'info') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, logger: { ...loggerOptions({ logLevel: level }), stream } };
}
