// `npm run typecheck` and `npm run lint` in one process, sharing one TypeScript program per
// tsconfig: the type check builds and checks each program (as `tsc --noEmit --incremental`
// would, with the same build info), then ESLint's type-aware rules read their types from those
// programs instead of building and checking their own. Each used to build the whole program on a
// fresh clone, about half of the checks' CPU. `npm test` runs it (scripts/test.mjs); alone:
//
//   node scripts/types-and-lint.mjs               the type check, then lint (`npm run check`)
//   node scripts/types-and-lint.mjs --only types  the type check alone (`npm run typecheck`)
//   node scripts/types-and-lint.mjs --only lint   lint alone (`npm run lint`), the programs built
//                                                 but their own errors not reported
//
// Every lint goes through here, so ESLint's cache (which hashes each file's configuration) is
// one cache whichever of them ran last.
//
// Under `npm test` (an IPC channel to its parent) it sends `{ check, passed, report }` as each
// part ends, so the tests can start once the types pass while lint goes on.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const cache = path.join(root, 'node_modules', '.cache');

/** The two programs, each with the build info `npm run typecheck` has always kept. */
const PROJECTS = [
  { tsconfig: 'tsconfig.json', buildInfo: 'tsc/server.tsbuildinfo' },
  { tsconfig: 'web/tsconfig.json', buildInfo: 'tsc/web.tsbuildinfo' },
];

const formatHost = {
  getCanonicalFileName: (file) => file,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};

/** A project's program as `tsc -p <tsconfig> --noEmit --incremental` builds it, build info read. */
function buildProject({ tsconfig, buildInfo }) {
  const tsBuildInfoFile = path.join(cache, buildInfo);
  mkdirSync(path.dirname(tsBuildInfoFile), { recursive: true });
  const configDiagnostics = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(
    path.join(root, tsconfig),
    { incremental: true, tsBuildInfoFile, noEmit: true },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => configDiagnostics.push(d) },
  );
  if (parsed === undefined) return { builder: undefined, program: undefined, configDiagnostics };
  const builder = ts.createIncrementalProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
    host: ts.createIncrementalCompilerHost(parsed.options),
  });
  return { builder, program: builder.getProgram(), configDiagnostics };
}

/** A project checked as `tsc -p <tsconfig> --noEmit --incremental` checks it. */
function checkProject(project) {
  const { builder, program, configDiagnostics } = buildProject(project);
  if (builder === undefined) return { program, diagnostics: configDiagnostics };
  // The order and the kinds tsc reports, each file's answer cached in the build info.
  const diagnostics = [
    ...builder.getConfigFileParsingDiagnostics(),
    ...builder.getOptionsDiagnostics(),
    ...builder.getGlobalDiagnostics(),
    ...builder.getSyntacticDiagnostics(),
  ];
  if (diagnostics.length === 0) diagnostics.push(...builder.getSemanticDiagnostics());
  // With noEmit, this writes the build info only.
  builder.emit();
  return { program, diagnostics };
}

function typecheck() {
  const started = Date.now();
  const checked = PROJECTS.map(checkProject);
  const diagnostics = checked.flatMap((each) => each.diagnostics);
  const report =
    diagnostics.length === 0
      ? ''
      : process.stdout.isTTY
        ? ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost)
        : ts.formatDiagnostics(diagnostics, formatHost);
  const passed = !diagnostics.some((d) => d.category === ts.DiagnosticCategory.Error);
  return {
    passed,
    report: heading('typecheck', started, passed) + report,
    programs: checked.map((each) => each.program).filter((program) => program !== undefined),
  };
}

/**
 * `eslint .` as `npm run lint` runs it (its cache too), the TypeScript files typed by the
 * programs above: the web client's first, so a web/src file imported by a test is typed as the
 * browser sees it.
 */
async function lint(programs) {
  const started = Date.now();
  // ESLint hashes each file's configuration for its cache; a program stands for itself there.
  for (const program of programs) program.toJSON = () => 'a program of scripts/types-and-lint.mjs';
  const { ESLint } = await import('eslint');
  const eslint = new ESLint({
    cwd: root,
    cache: true,
    cacheStrategy: 'content',
    cacheLocation: path.join(cache, 'eslint') + path.sep,
    overrideConfig: [
      {
        files: ['**/*.ts', '**/*.tsx'],
        languageOptions: {
          parserOptions: { projectService: false, programs: [...programs].reverse() },
        },
      },
    ],
  });
  const results = await eslint.lintFiles(['.']);
  const formatter = await eslint.loadFormatter('stylish');
  const report = await formatter.format(results);
  const passed = results.every((result) => result.errorCount === 0 && result.fatalErrorCount === 0);
  return { passed, report: heading('lint', started, passed) + report };
}

function heading(check, started, passed) {
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  return `\n> ${check} (${seconds} s, ${passed ? 'ok' : 'failed'})\n`;
}

/** To the parent under `npm test`, else to the terminal. */
function tell(check, { passed, report }) {
  if (process.send) process.send({ check, passed, report });
  else process.stdout.write(report.endsWith('\n') ? report : `${report}\n`);
}

const only = process.argv.includes('--only')
  ? process.argv[process.argv.indexOf('--only') + 1]
  : undefined;
if (only !== undefined && only !== 'types' && only !== 'lint') {
  throw new Error(`--only takes types or lint, not ${only}`);
}
let passed = true;
let programs;
if (only === 'lint') {
  programs = PROJECTS.map(buildProject).map((each) => each.program);
} else {
  const types = typecheck();
  tell('typecheck', types);
  passed = types.passed;
  programs = types.programs;
}
if (only !== 'types') {
  const linted = await lint(programs.filter((program) => program !== undefined));
  tell('lint', linted);
  passed &&= linted.passed;
}
process.exitCode = passed ? 0 : 1;
