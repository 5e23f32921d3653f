// Running npm scripts from our own scripts: whole-output runs for checks that go side by side
// (their outputs never interleave) and streamed runs for the test projects.
import { spawn } from 'node:child_process';

/**
 * `npm run <script>` with its output collected. `done` resolves with whether it passed, once it
 * ended; `report()` is then the output under a heading naming the script, its time and result.
 */
export function runCollected(script) {
  const started = Date.now();
  const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let code;
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const done = new Promise((resolve) =>
    child.on('close', (exitCode) => {
      code = exitCode;
      resolve(exitCode === 0);
    }),
  );
  return {
    done,
    report() {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const heading = `\n> ${script} (${seconds} s, ${code === 0 ? 'ok' : `exit ${code}`})\n`;
      const body = output.trim() === '' ? '' : output.endsWith('\n') ? output : `${output}\n`;
      return heading + body;
    },
  };
}

/** A command with the terminal as its output; resolves with whether it passed. */
export function runStreamed(command, args) {
  const child = spawn(command, args, { stdio: 'inherit' });
  return new Promise((resolve) => child.on('close', (code) => resolve(code === 0)));
}
