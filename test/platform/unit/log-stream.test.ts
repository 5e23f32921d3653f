import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../../src/platform/paths.js';

/**
 * The request log's stdout stream gathers lines into writes of about 4 KB
 * (src/platform/http/logger.ts). Gathering must never keep a line back: a quiet instance's line
 * goes out within its half-second flush, and an exit writes what is still buffered.
 */
function run(mode: 'quiet' | 'burst') {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/log-lines.ts', mode], {
    cwd: fromRoot(),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

const linesOf = (text: string) => text.split('\n').filter((line) => line !== '');

describe('the stdout log stream', () => {
  it('writes a quiet process’s line within the flush interval, not when the buffer fills', async () => {
    const { child, output } = run('quiet');
    try {
      const deadline = Date.now() + 20_000;
      while (!output().includes('quiet line') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(output()).toContain('quiet line');
      // The process is still up: the line went out by the periodic flush, not by an exit.
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('flushes every buffered line when the process exits', async () => {
    const { child, output } = run('burst');
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    const lines = linesOf(output()).map((line) => JSON.parse(line) as { n: number; msg: string });
    expect(lines.map((line) => line.n)).toEqual(Array.from({ length: 300 }, (_, n) => n));
  });
});
