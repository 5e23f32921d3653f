import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProcessStop, type StopMode } from '../../../src/platform/process-stop.js';

/* The stop's rules, on fake timers; test/faults/group-stop.test.ts signals real processes. */

interface Harness {
  stop: ReturnType<typeof createProcessStop>;
  calls: string[];
  exits: number[];
  warnings: string[];
  advance: (ms: number) => void;
  /** Steps that never finish their graceful stop until released. */
  release: () => void;
}

function harness(options: { hangs?: boolean } = {}): Harness {
  const calls: string[] = [];
  const exits: number[] = [];
  const warnings: string[] = [];
  let clock = 0;
  let release = () => undefined as void;
  const hanging = new Promise<void>((resolve) => (release = resolve));
  const step = (name: string) => ({
    name,
    stop: async (mode: StopMode) => {
      calls.push(`${name} ${mode}`);
      if (options.hangs && mode === 'graceful' && name === 'api') await hanging;
    },
  });
  const stop = createProcessStop({
    steps: () => [step('api'), step('reports'), step('database')],
    log: { info: () => undefined, warn: (message: string) => warnings.push(message) },
    timeoutMs: 10_000,
    repeatWindowMs: 1_000,
    exit: (code) => exits.push(code),
    now: () => clock,
  });
  return {
    stop,
    calls,
    exits,
    warnings,
    advance(ms) {
      clock += ms;
      vi.advanceTimersByTime(ms);
    },
    release: () => release(),
  };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('process stop', () => {
  it('one signal stops every step gracefully, in order, and exits 0', async () => {
    const { stop, calls, exits } = harness();
    await stop.started();
    stop.signal('SIGINT');
    await vi.runAllTimersAsync();
    expect(calls).toEqual(['api graceful', 'reports graceful', 'database graceful']);
    expect(exits).toEqual([0]);
  });

  it('the same Ctrl-C arriving twice within the window (the group, then npm relaying it) is one graceful stop', async () => {
    const { stop, calls, exits, advance } = harness();
    await stop.started();
    stop.signal('SIGINT');
    advance(300);
    stop.signal('SIGINT');
    await vi.runAllTimersAsync();
    expect(calls).toEqual(['api graceful', 'reports graceful', 'database graceful']);
    expect(exits).toEqual([0]);
  });

  it('a second signal after the window forces every step, the database included, and exits 1', async () => {
    const { stop, calls, exits, advance } = harness({ hangs: true });
    await stop.started();
    stop.signal('SIGINT');
    advance(1_500);
    stop.signal('SIGINT');
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toEqual(['api graceful', 'api forced', 'reports forced', 'database forced']);
    expect(exits).toEqual([1]);
  });

  it('a graceful stop that outlasts the timeout is forced, and says which step held it', async () => {
    const { stop, calls, exits, warnings } = harness({ hangs: true });
    await stop.started();
    stop.signal('SIGTERM');
    await vi.advanceTimersByTimeAsync(9_999);
    expect(exits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toEqual(['api graceful', 'api forced', 'reports forced', 'database forced']);
    expect(exits).toEqual([1]);
    expect(warnings).toEqual(['the stop took too long (stopping api): stopping now']);
  });

  it('a signal during start-up is kept until the start-up step ends, then stops what has started', async () => {
    const { stop, calls, exits } = harness();
    stop.signal('SIGINT');
    expect(stop.requested).toBe(true);
    expect(calls).toEqual([]);
    await stop.started();
    expect(calls).toEqual(['api graceful', 'reports graceful', 'database graceful']);
    expect(exits).toEqual([0]);
  });

  it('a failed start-up stops what had started and exits 1', async () => {
    const { stop, calls, exits } = harness();
    await stop.failed();
    expect(calls).toEqual(['api graceful', 'reports graceful', 'database graceful']);
    expect(exits).toEqual([1]);
  });
});
