// `npm test`: the checks, then the unit and integration projects in one vitest run, then the
// browser project. Lint, the longest check (a type-aware program of its own, on one core), runs
// beside the others from the start and on into the tests: after the type check and the format
// check end it would leave the second core idle for a quarter of a minute. Its output is printed
// as one block when it ends; a lint failure fails the run, and the tests do not start if it came
// before them.
import { runCollected, runStreamed } from './npm-scripts.mjs';

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

const passed =
  (await checks()) &&
  (await runStreamed('npm', ['run', '--silent', 'test:only'])) &&
  (await runStreamed('npm', ['run', '--silent', 'test:browser']));
// The tests' outcome stands even when lint failed meanwhile: its block above says why.
process.exit(passed && (await lintPassed) ? 0 : 1);
