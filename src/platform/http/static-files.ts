import type { FileHandle } from 'node:fs/promises';
import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Stats } from 'node:fs';

/** Content types by extension; anything else is a download (`nosniff` forbids guessing). */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
  '.pdf': 'application/pdf',
};

export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

export interface OpenFile {
  readonly path: string;
  readonly handle: FileHandle;
  readonly stats: Stats;
}

/**
 * The file a URL path names inside `root` (an absolute, real path), opened, or undefined. Refused
 * before the file system is asked: undecodable escapes, NUL, backslashes, `..` and hidden
 * (`.`-prefixed) segments, so `/%2e%2e/` or `/.env` never leave or peek into the folder; after
 * opening, a symbolic link that leads out of it. Directories are not files.
 */
export async function openInside(root: string, urlPath: string): Promise<OpenFile | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/').filter((segment) => segment !== '');
  if (segments.length === 0 || segments.some((segment) => segment.startsWith('.'))) {
    return undefined;
  }
  const file = path.join(root, ...segments);
  if (!file.startsWith(`${root}${path.sep}`)) return undefined;

  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch {
    return undefined; // absent, a path through a file (ENOTDIR), unreadable: not ours to serve
  }
  try {
    const stats = await handle.stat();
    const real = await realpath(file);
    if (stats.isFile() && real.startsWith(`${root}${path.sep}`))
      return { path: file, handle, stats };
  } catch {
    // Vanished between open and stat: as absent.
  }
  await handle.close();
  return undefined;
}

/** A validator that changes whenever the file is replaced (a new build), per coding sent. */
export function etagOf(stats: Stats, encoding?: string): string {
  const coding = encoding ? `-${encoding}` : '';
  return `W/"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}${coding}"`;
}

/** The content codings of a precompressed file beside its original (written at build time). */
export type Encoding = 'br' | 'gzip';
const SUFFIXES: Readonly<Record<Encoding, string>> = { br: '.br', gzip: '.gz' };
/** Brotli first: a third smaller than gzip on the client's scripts. */
const PREFERENCE: readonly Encoding[] = ['br', 'gzip'];

/** Whether a file of this content type is text worth compressing. */
export function isCompressible(contentType: string): boolean {
  return /^(?:text\/|application\/(?:json|javascript|xml|manifest\+json)|image\/svg\+xml)/.test(
    contentType,
  );
}

/**
 * The codings an Accept-Encoding header allows, of those we serve, best first: a coding is
 * allowed when named (or `*`) with a q-value above 0; `identity` is always acceptable.
 */
export function acceptedEncodings(header: string | undefined): Encoding[] {
  if (!header) return [];
  const quality = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [name = '', ...params] = part.split(';').map((piece) => piece.trim());
    if (name === '') continue;
    const q = params.find((param) => param.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    quality.set(name, Number.isFinite(value) ? value : 0);
  }
  const allowed = (coding: string) =>
    (quality.get(coding) ??
      (coding === 'gzip' ? quality.get('x-gzip') : undefined) ??
      quality.get('*') ??
      0) > 0;
  return PREFERENCE.filter(allowed);
}

export interface EncodedFile {
  /** What to send: the precompressed file, or the original. */
  readonly file: OpenFile;
  /** The original's path (its extension says the content type). */
  readonly original: string;
  readonly encoding: Encoding | undefined;
}

/**
 * The file a URL path names inside `root`, as `openInside` finds it, or its precompressed
 * `<file>.br` / `<file>.gz` when the request accepts that coding and the copy is not older than
 * the original (a stale copy from an earlier build is never sent).
 */
export async function openEncoded(
  root: string,
  urlPath: string,
  accepted: readonly Encoding[],
): Promise<EncodedFile | undefined> {
  const original = await openInside(root, urlPath);
  if (!original) return undefined;
  if (!isCompressible(contentTypeOf(original.path))) {
    return { file: original, original: original.path, encoding: undefined };
  }
  for (const encoding of accepted) {
    const copy = await openInside(root, `${urlPath}${SUFFIXES[encoding]}`);
    if (!copy) continue;
    if (copy.stats.mtimeMs >= original.stats.mtimeMs) {
      await original.handle.close();
      return { file: copy, original: original.path, encoding };
    }
    await copy.handle.close();
  }
  return { file: original, original: original.path, encoding: undefined };
}
