import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLifetime } from '../../../src/platform/lifetime.js';

/** A logger whose lines' messages land in `lines`. */
function recordingLog() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push((JSON.parse(chunk.toString()) as { msg: string }).msg);
      done();
    },
  });
  return { lines, log: pino({ level: 'warn' }, stream) };
}

describe('a lifetime closing what a build opened', () => {
  it('closes last first, and a failure to close one does not stop the others', async () => {
    const { lines, log } = recordingLog();
    const lifetime = createLifetime(log);
    const closed: string[] = [];
    lifetime.add('pools', () => void closed.push('pools'));
    lifetime.add('redis', () => Promise.reject(new Error('gone')));
    lifetime.add('job queue', () => void closed.push('job queue'));
    await lifetime.closeAll();
    expect(closed).toEqual(['job queue', 'pools']);
    expect(lines).toEqual(['closing a resource failed']);
  });

  it('names a close that takes long while it goes on, and stays quiet for quick ones', async () => {
    const { lines, log } = recordingLog();
    const lifetime = createLifetime(log, 30);
    lifetime.add('tenant pools', () => undefined);
    lifetime.add('job queue', () => sleep(120));
    const closing = lifetime.closeAll();
    await sleep(80);
    // Said before the close has ended: a stop forced meanwhile has it in its output.
    expect(lines).toEqual(['closing job queue takes over 30 ms']);
    await closing;
    expect(lines).toEqual(['closing job queue takes over 30 ms']);
  });
});
