import { createHash } from 'node:crypto';
import { CompiledQuery, type Compilable } from 'kysely';
import type { PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/**
 * The hottest reads run as named prepared statements: PostgreSQL parses and plans them once per
 * connection instead of on every request (a statement Kysely sends is unnamed, so it is planned
 * again each time). A statement is a fixed SQL text (one per customer schema) whose values all
 * travel as parameters; `preparedQuery` marks it and the tenant pools' connections run every
 * marked text under a name derived from it. Texts are marked by code, never from input, and
 * the set is capped so a mistake cannot grow every connection's statement cache without end.
 */
const MAX_PREPARED = 500;

/**
 * Names for statement texts, derived from each text, at most `max` of them: past the cap a text
 * stays unnamed (sent as is), so no mistake grows a connection's statement cache without end.
 * `name` gives a text its name; `get` only looks one up.
 */
export function statementNames(prefix: string, max: number) {
  const names = new Map<string, string>();
  return {
    get: (text: string): string | undefined => names.get(text),
    name(text: string): string | undefined {
      let name = names.get(text);
      if (name === undefined && names.size < max) {
        name = `${prefix}_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
        names.set(text, name);
      }
      return name;
    },
  };
}

const marked = statementNames('portal', MAX_PREPARED);

/** A uuid no row has, to compile a query with before the real id is bound. */
export const PLACEHOLDER_ID = '00000000-0000-4000-8000-0000000000ff';

/**
 * A query compiled once, with `replace(values)` to fill its parameters for one execution. The
 * builder is compiled with placeholders and every placeholder must appear exactly once.
 */
export interface PreparedQuery<Keys extends string> {
  bind(values: Record<Keys, unknown>): CompiledQuery;
}

export function preparedQuery<Keys extends string>(
  builder: Compilable,
  placeholders: Record<Keys, unknown>,
): PreparedQuery<Keys> {
  const compiled = builder.compile();
  const positions = Object.entries(placeholders).map(([key, placeholder]) => {
    const at = compiled.parameters.indexOf(placeholder);
    if (at === -1 || compiled.parameters.lastIndexOf(placeholder) !== at) {
      throw new Error(`prepared query: placeholder ${key} must appear exactly once`);
    }
    return [key as Keys, at] as const;
  });
  marked.name(compiled.sql);
  return {
    bind(values) {
      const parameters = [...compiled.parameters];
      for (const [key, at] of positions) parameters[at] = values[key];
      return CompiledQuery.raw(compiled.sql, parameters);
    },
  };
}

/**
 * A fixed SQL text whose parameters `$1`, `$2`... are `keys` in that order, marked like
 * `preparedQuery`'s: for statements written as SQL rather than built.
 */
export function preparedSql<Keys extends string>(
  text: string,
  keys: readonly Keys[],
): PreparedQuery<Keys> {
  marked.name(text);
  return {
    bind: (values) =>
      CompiledQuery.raw(
        text,
        keys.map((key) => values[key]),
      ),
  };
}

/**
 * What Kysely's PostgresDialect is handed for one checked-out connection: its queries go to the
 * pg client as they are, except a marked text, which goes as a named statement. `prepare: false`
 * (PORTAL_DB_PREPARED_STATEMENTS=false, for a pooler that cannot keep them) sends everything
 * unnamed. Cursors (Kysely's `stream()`) are not used by the portal and are refused.
 */
export function kyselyClient(
  client: pg.Client,
  release: () => void,
  prepare: boolean,
): PostgresPoolClient {
  const query = (text: unknown, parameters?: readonly unknown[]) => {
    if (typeof text !== 'string') throw new Error('tenant connections do not stream');
    const name = prepare ? marked.get(text) : undefined;
    const values = parameters === undefined ? [] : [...parameters];
    return name === undefined ? client.query(text, values) : client.query({ name, text, values });
  };
  // The interface's second overload (cursors) is refused above, so only the first is served.
  return { query: query as unknown as PostgresPoolClient['query'], release };
}
