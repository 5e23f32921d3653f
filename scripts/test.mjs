// `npm test` and `npm run test:all` (`--all`). Both start with the checks (cached: a second run
// re-reads only what changed), then run vitest projects, each phase only when the one before
// passed:
// - `npm test`: unit, integration and the browser smoke files (test/web/browser/smoke/) in one run;
// - `npm run test:all`: unit, integration and process in one run, then the whole browser
//   project (smoke included), then the fault tests, each with two workers as before.
// Lint, the longest check (a type-aware program of its own, on one core), runs beside the others
// from the start and on into the tests: after the type check and the format check end it would
// leave the second core idle. Its output is printed as one block when it ends; a lint failure
// fails the run, and the tests do not start if it came before them.
import { runCollected, runStreamed } from './npm-scripts.mjs';

const all = process.argv.includes('--all');

const lint = runCollected('lint');
const lintPassed = lint.done.then((passed) => {
  process.stdout.write(lint.report());
  return passed;
});
let lintFailed = false;
void lintPassed.then((passed) => (lintFailed = !passed));

async function checks() {
  const results = await Promise.all(
    ['typecheck', 'format:check'].map(async (script) => {
      const run = runCollected(script);
      const passed = await run.done;
      process.stdout.write(run.report());
      return passed;
    }),
  );
  return results.every(Boolean) && !lintFailed;
}

/** `vitest run` with these projects (and any other arguments); npm puts it on the PATH. */
const vitest = (projects, ...args) =>
  runStreamed('vitest', ['run', ...projects.flatMap((project) => ['--project', project]), ...args]);

const phases = all
  ? [
      () => vitest(['unit', 'integration', 'process']),
      () => vitest(['smoke', 'browser'], '--maxWorkers=2'),
      () => vitest(['faults'], '--maxWorkers=2'),
    ]
  : [() => vitest(['unit', 'integration', 'smoke'])];

let passed = await checks();
for (const phase of phases) passed &&= await phase();
// The tests' outcome stands even when lint failed meanwhile: its block above says why.
process.exit(passed && (await lintPassed) ? 0 : 1);
