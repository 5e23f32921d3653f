// Runs npm scripts side by side and fails when any fails: `npm run check`'s four checks are
// single-threaded, so on two cores they take about half as long together as one after another.
// Each script's output is printed whole when it ends, so outputs never interleave.
import { spawn } from 'node:child_process';

const scripts = process.argv.slice(2);
const runs = scripts.map(
  (script) =>
    new Promise((resolve) => {
      const started = Date.now();
      const child = spawn('npm', ['run', '--silent', script], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('close', (code) => {
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        process.stdout.write(
          `\n> ${script} (${seconds} s, ${code === 0 ? 'ok' : `exit ${code}`})\n`,
        );
        if (output.trim() !== '')
          process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
        resolve(code === 0);
      });
    }),
);
const results = await Promise.all(runs);
process.exit(results.every(Boolean) ? 0 : 1);
