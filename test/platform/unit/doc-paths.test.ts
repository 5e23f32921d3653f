import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * A doc or a comment that names a file names one that exists (docs/architecture.md "Names"):
 * files move, and a path left behind sends the next reader to nothing. Read are the docs (every
 * `.md` of the repository's own), whole, and the code of src/, contract/ and web/src/, whole
 * (comments and strings alike: a string that names a file must name one too).
 *
 * What counts as a path:
 * - one from the repository's root (`src/…`, `test/…`, `docs/…`, `.ci/run`): the file or folder
 *   itself, where a `.js` may name its `.ts` or `.tsx` source and a migration may be named by
 *   its number (`db/migrations/customer/0007`);
 * - a shorter one with a folder and an extension (`queries/json-columns.ts`, written inside its
 *   module): the end of some file's path, or a file beside the one that names it;
 * - a Markdown link's relative target (`[scaling](scaling.md)`), from the doc's folder.
 * Not read: a bare file name (`parts.ts` is as often a property), a pattern or a placeholder
 * (`test/**`, `src/modules/<name>/`, `${root}/x.ts`), a URL's path (`/docs/json`,
 * `https://…/a.md`), a package's file (`nodemailer/lib/…`) and whatever `.gitignore` keeps out of
 * the repository (`dist/`, `.data/`): built or made at run time, it is not here to be found.
 *
 * After a merge that moves files, run this file alone (`npx vitest run --project unit
 * test/platform/unit/doc-paths.test.ts`): each failure says where the path is written and, when a
 * file of that name exists elsewhere, where it may have gone.
 */

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** The repository's own folders, from its root: a path starting with one is checked as a whole. */
const TOP_FOLDERS = [
  'src',
  'test',
  'contract',
  'web',
  'docs',
  'db',
  'scripts',
  'bench',
  'deploy',
  '.ci',
];
/** The code read for paths. */
const CODE_FOLDERS = ['src', 'contract', join('web', 'src')];
/** Extensions of the files docs and comments name. */
const EXTENSIONS = ['ts', 'tsx', 'js', 'mjs', 'md', 'sql', 'json', 'html', 'css', 'yml', 'yaml'];

/** Path characters, and the pattern characters that make a token a pattern rather than a path. */
const TOKEN = /(?<![\w./@:~$-])((?:\.ci|[\w-]+)(?:\/[\w.*{}<>[\]$-]*)+)/g;
const PATTERN = /[*{}<>[\]$]/;
const HAS_EXTENSION = new RegExp(`\\.(?:${EXTENSIONS.join('|')})$`);
const MARKDOWN_LINK = /\]\(([^()\s]+)\)/g;
/**
 * A merge's conflict markers: Git's own at a line's start, or after Prettier formatted a doc that
 * kept them (`\=======`, `> > > > > > >`, `<<<<<<<` indented into a list).
 */
const CONFLICT_MARKER = /^\s*(?:<{7}|>{7}|\\?={7}$|(?:> ){7})/;

interface RepositoryIndex {
  files: ReadonlySet<string>;
  folders: ReadonlySet<string>;
  /** Files by their last path segment, for the hint of where a named file went. */
  byName: ReadonlyMap<string, readonly string[]>;
  /** Names `.gitignore` keeps out (`dist`, `.data`, `node_modules`, `.env`). */
  ignored: ReadonlySet<string>;
  /** Package names (package.json's dependencies): `nodemailer/lib/x.js` is theirs. */
  packages: ReadonlySet<string>;
}

interface Mention {
  /** `docs/receipts.md:27`. */
  where: string;
  path: string;
  kind: 'rooted' | 'partial' | 'link';
}

/** What `.gitignore` keeps out, as folder names (its `name/` lines). */
async function ignoredFolders(): Promise<Set<string>> {
  const text = await readFile(join(ROOT, '.gitignore'), 'utf8');
  return new Set(
    text
      .split('\n')
      .map((line) => line.trim())
      // Folders (`dist/`) and plain names (`.env`, an operator's secrets file), not patterns.
      .filter((line) => (line.endsWith('/') || /^[\w.-]+$/.test(line)) && !line.startsWith('#'))
      .map((line) => line.replace(/^\/|\/$/g, '')),
  );
}

async function repositoryIndex(): Promise<RepositoryIndex> {
  const [ignored, manifest, top] = await Promise.all([
    ignoredFolders(),
    readFile(join(ROOT, 'package.json'), 'utf8'),
    readdir(ROOT, { withFileTypes: true }),
  ]);
  const files = new Set<string>();
  const folders = new Set<string>();
  const skipped = (path: string) =>
    path.split('/').some((segment) => ignored.has(segment) || segment === '.git');
  for (const entry of top) {
    if (entry.isFile()) files.add(entry.name);
  }
  const listings = await Promise.all(
    TOP_FOLDERS.map(async (folder) => ({
      folder,
      entries: await readdir(join(ROOT, folder), { withFileTypes: true, recursive: true }),
    })),
  );
  for (const { folder, entries } of listings) {
    folders.add(folder);
    for (const entry of entries) {
      const path = relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/');
      if (skipped(path)) continue;
      if (entry.isDirectory()) folders.add(path);
      else files.add(path);
    }
  }
  const byName = new Map<string, string[]>();
  for (const file of files) {
    const name = file.slice(file.lastIndexOf('/') + 1);
    byName.set(name, [...(byName.get(name) ?? []), file]);
  }
  const { dependencies = {}, devDependencies = {} } = JSON.parse(manifest) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const packages = new Set([...Object.keys(dependencies), ...Object.keys(devDependencies)]);
  return { files, folders, byName, ignored, packages };
}

/** `a.js` may be the `a.ts` or `a.tsx` it is compiled from (imports name sources so). */
function sourcesOf(path: string): string[] {
  return path.endsWith('.js')
    ? [path, path.replace(/\.js$/, '.ts'), path.replace(/\.js$/, '.tsx')]
    : [path];
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) {
    line += 1;
  }
  return line;
}

/** The paths a text names (see the top of this file), with their line. */
function mentionsIn(text: string, file: string, markdown: boolean): Mention[] {
  const mentions: Mention[] = [];
  for (const match of text.matchAll(TOKEN)) {
    // A sentence's full stop or a comma is not part of the path.
    const path = (match[1] ?? '').replace(/[.,:;]+$/, '');
    if (PATTERN.test(path)) continue;
    const rooted = TOP_FOLDERS.some((folder) => path.startsWith(`${folder}/`));
    if (!rooted && !HAS_EXTENSION.test(path)) continue;
    mentions.push({
      where: `${file}:${lineOf(text, match.index)}`,
      path,
      kind: rooted ? 'rooted' : 'partial',
    });
  }
  if (markdown) {
    for (const match of text.matchAll(MARKDOWN_LINK)) {
      const target = (match[1] ?? '').replace(/#.*$/, '');
      if (target === '' || /^[a-z]+:/i.test(target) || target.startsWith('/')) continue;
      mentions.push({ where: `${file}:${lineOf(text, match.index)}`, path: target, kind: 'link' });
    }
  }
  return mentions;
}

/** Why a mention names nothing, or undefined when it names what is there (or is not ours). */
function problemOf(mention: Mention, index: RepositoryIndex): string | undefined {
  const file = mention.where.replace(/:\d+$/, '');
  const path = mention.path;
  const firstSegment = path.split('/')[0] ?? '';
  const scoped = path.split('/').slice(0, 2).join('/');
  if (index.packages.has(firstSegment) || index.packages.has(scoped)) return undefined;
  const exists = (candidate: string) =>
    sourcesOf(candidate).some((source) => index.files.has(source)) ||
    index.folders.has(candidate.replace(/\/$/, ''));
  const besideFile = normalize(join(dirname(file), path))
    .split('\\')
    .join('/');
  let found: boolean;
  if (mention.kind === 'link') {
    found = exists(besideFile);
  } else if (mention.kind === 'rooted') {
    found =
      exists(path) ||
      (/^db\/migrations\/\w+\/\d{4}$/.test(path) &&
        [...index.files].some((known) => known.startsWith(`${path}_`)));
  } else {
    const ends = sourcesOf(path).map((source) => `/${source}`);
    found =
      exists(besideFile) ||
      [...index.files].some((known) => ends.some((end) => known.endsWith(end)));
  }
  if (found) return undefined;
  // Out of the repository by `.gitignore` (a build's output, run-time data): nothing to find.
  if (path.split('/').some((segment) => index.ignored.has(segment))) return undefined;
  const name = path.replace(/\/$/, '').slice(path.replace(/\/$/, '').lastIndexOf('/') + 1);
  const elsewhere = sourcesOf(name).flatMap((source) => index.byName.get(source) ?? []);
  return elsewhere.length > 0
    ? `${mention.where}: ${path} (is it ${elsewhere.slice(0, 3).join(' or ')}?)`
    : `${mention.where}: ${path}`;
}

async function readFiles(
  index: RepositoryIndex,
): Promise<{ file: string; text: string; markdown: boolean }[]> {
  const docs = [...index.files].filter((file) => file.endsWith('.md'));
  const code = [...index.files].filter(
    (file) =>
      /\.tsx?$/.test(file) &&
      CODE_FOLDERS.some((folder) => file.startsWith(`${folder.split('\\').join('/')}/`)),
  );
  return Promise.all(
    [...docs, ...code].map(async (file) => ({
      file,
      text: await readFile(join(ROOT, file), 'utf8'),
      markdown: file.endsWith('.md'),
    })),
  );
}

describe('paths in docs and comments', () => {
  it('name files and folders that exist', async () => {
    const index = await repositoryIndex();
    const files = await readFiles(index);
    expect(files.length).toBeGreaterThan(300);
    const mentions = files.flatMap(({ file, text, markdown }) => mentionsIn(text, file, markdown));
    expect(mentions.length).toBeGreaterThan(1000);
    const broken = mentions
      .map((mention) => problemOf(mention, index))
      .filter((problem) => problem !== undefined);
    expect(broken).toEqual([]);
  });

  it('carry no merge conflict left behind, as Git writes it or as Prettier escapes it in a doc', async () => {
    const files = await readFiles(await repositoryIndex());
    const markers = files.flatMap(({ file, text }) =>
      text
        .split('\n')
        .flatMap((line, index) =>
          CONFLICT_MARKER.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(markers).toEqual([]);
    // Each form is seen, so an empty list above means none is there.
    const forms = ['<<<<<<< HEAD', '  \\=======', '> > > > > > > branch', '=======', '>>>>>>> b'];
    expect(forms.filter((line) => !CONFLICT_MARKER.test(line))).toEqual([]);
  });

  it('reads a path where a doc or a comment writes one, and nothing else', () => {
    const text = [
      '// See `src/platform/money.ts`, test/platform/unit/clock.test.ts.',
      ' * in queries/json-columns.ts (docs/decisions.md #26); the `.ci/run` script',
      'GET /docs/json, https://example.com/docs/a.md, `test/**/*.test.ts`, src/modules/<name>/',
      "`${root}/x.ts`, parts.ts, application/json, '../payments/index.js'",
      'the [scaling](scaling.md#pools) page, [site](https://example.com/x.md)',
    ].join('\n');
    expect(
      mentionsIn(text, 'docs/x.md', true).map(({ where, path, kind }) => [where, path, kind]),
    ).toEqual([
      ['docs/x.md:1', 'src/platform/money.ts', 'rooted'],
      ['docs/x.md:1', 'test/platform/unit/clock.test.ts', 'rooted'],
      ['docs/x.md:2', 'queries/json-columns.ts', 'partial'],
      ['docs/x.md:2', 'docs/decisions.md', 'rooted'],
      ['docs/x.md:2', '.ci/run', 'rooted'],
      ['docs/x.md:5', 'scaling.md', 'link'],
    ]);
  });

  it('would fail on a file that is gone, and say where one of its name is', async () => {
    const index = await repositoryIndex();
    const [gone, moved, built] = mentionsIn(
      'src/modules/receipts/nowhere.ts, test/platform/clock.test.ts, dist/src/server.js',
      'docs/x.md',
      false,
    );
    expect(gone && problemOf(gone, index)).toBe('docs/x.md:1: src/modules/receipts/nowhere.ts');
    expect(moved && problemOf(moved, index)).toBe(
      'docs/x.md:1: test/platform/clock.test.ts (is it test/platform/unit/clock.test.ts?)',
    );
    expect(built && problemOf(built, index)).toBeUndefined();
  });
});
