/**
 * Schema names reach SQL only through these checks. They come from the registry (`sucursales`)
 * or from tenant configuration (`ini`), never from a request, and must still look like schemas.
 */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function isSchemaName(value: string): boolean {
  return SCHEMA_NAME.test(value);
}

/** Double-quoted identifier for the few statements Kysely cannot build (DDL in migrations). */
export function quoteIdentifier(name: string): string {
  if (!isSchemaName(name)) throw new Error(`Refusing unsafe SQL identifier "${name}"`);
  return `"${name}"`;
}
