// `npm test` and `npm run test:all` (`--all`). Both start with the checks (cached: a second run
// re-reads only what changed), then run vitest projects, each phase only when the one before
// passed:
// - `npm test`: unit, integration and the browser smoke files (test/web/browser/smoke/) in one
//   run;
// - `npm run test:all`: unit and integration in one run, then the process tests (they time real
//   starts and stops, so nothing runs beside them), then the whole browser project (smoke
//   included), then the fault tests, each with two workers as before.
// The type check and lint run in one process (scripts/types-and-lint.mjs: one TypeScript program
// per tsconfig, checked once and read by ESLint's type-aware rules), beside the format check on
// the other core. The tests start once the types and the formatting pass, while lint, the
// longest, goes on beside them. Each check's output is printed as one block when it ends; a lint
// failure fails the run, and the tests do not start if it came before them.
import { spawn } from 'node:child_process';
import { runCollected, runStreamed } from './npm-scripts.mjs';

const all = process.argv.includes('--all');

/** The type check and lint: `{ typecheck, lint }`, each resolving with whether it passed. */
function typesAndLint() {
  const child = spawn(process.execPath, ['scripts/types-and-lint.mjs'], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const settle = {};
  const parts = Object.fromEntries(
    ['typecheck', 'lint'].map((check) => [
      check,
      new Promise((resolve) => (settle[check] = resolve)),
    ]),
  );
  child.on('message', ({ check, passed, report }) => {
    process.stdout.write(report.endsWith('\n') ? report : `${report}\n`);
    settle[check](passed);
  });
  // A crash (or anything printed besides the reports) is said once, and fails what had not ended.
  child.on('close', (code) => {
    if (output.trim() !== '' || code !== 0) {
      process.stdout.write(`\n> scripts/types-and-lint.mjs (exit ${code})\n${output}`);
    }
    for (const check of Object.keys(settle)) settle[check](false);
  });
  return parts;
}

const { typecheck, lint: lintPassed } = typesAndLint();
let lintFailed = false;
void lintPassed.then((passed) => (lintFailed = !passed));

async function checks() {
  const format = runCollected('format:check');
  const formatted = format.done.then((passed) => {
    process.stdout.write(format.report());
    return passed;
  });
  const results = await Promise.all([typecheck, formatted]);
  return results.every(Boolean) && !lintFailed;
}

/** `vitest run` with these projects (and any other arguments); npm puts it on the PATH. */
const vitest = (projects, ...args) =>
  runStreamed('vitest', ['run', ...projects.flatMap((project) => ['--project', project]), ...args]);

const phases = all
  ? [
      () => vitest(['unit', 'integration']),
      // The process tests time real starts and stops (a stop has a 10 s deadline): beside the
      // integration files the machine's two cores starved them past it. Their own phase.
      () => vitest(['process']),
      () => vitest(['smoke', 'browser'], '--maxWorkers=2'),
      () => vitest(['faults'], '--maxWorkers=2'),
    ]
  : [() => vitest(['unit', 'integration', 'smoke'])];

let passed = await checks();
for (const phase of phases) passed &&= await phase();
// The tests' outcome stands even when lint failed meanwhile: its block above says why.
process.exit(passed && (await lintPassed) ? 0 : 1);
