// Runs npm scripts side by side and fails when any fails: `npm run check`'s checks are
// single-threaded, so on two cores they take about half as long together as one after another.
// Each script's output is printed whole when it ends, so outputs never interleave.
import { runCollected } from './npm-scripts.mjs';

const results = await Promise.all(
  process.argv.slice(2).map(async (script) => {
    const run = runCollected(script);
    const passed = await run.done;
    process.stdout.write(run.report());
    return passed;
  }),
);
process.exit(results.every(Boolean) ? 0 : 1);
