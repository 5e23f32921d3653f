/*
 * A tenant setting: one key of the tenant's `ini` (docs/erp.md "Tenant settings"), how its text
 * is read, and what applies when it is absent or not one of the values it takes. The registry
 * (registry.ts) holds every one the portal reads; the reader (reader.ts) is the only code that
 * reads `ini`.
 */

/** A setting's value from its text, and whether the text was one the key does not take. */
export interface Parsed<T> {
  value: T;
  /** The text was not one the key takes: the default applies, and the reader logs the key. */
  bad?: boolean;
}

export interface Setting<T> {
  readonly key: string;
  /** The default as docs/erp.md's settings table words it (a test holds the two together). */
  readonly fallback: string;
  /** What it is for, in a line. */
  readonly meaning: string;
  /**
   * Whether a bad value may be quoted in the log. Never a secret, nor what a business typed as
   * an amount: for those the key alone says where to look.
   */
  readonly quotable: boolean;
  /** `raw` is the trimmed text; undefined when the key is absent or blank. */
  parse(raw: string | undefined): Parsed<T>;
}

/**
 * Keys named by a prefix whose rest a module defines (the gateways' `portal.gateway.<id>.*`):
 * read as text, prefix removed; their module checks them.
 */
export interface SettingFamily {
  readonly prefix: string;
  readonly meaning: string;
}

/** What one read asks for: settings by the names the caller gives them. */
export type SettingsGroup = Readonly<Record<string, Setting<unknown> | SettingFamily>>;

/** The values of a group's settings, by the same names. */
export type SettingsOf<G extends SettingsGroup> = {
  readonly [K in keyof G]: G[K] extends Setting<infer T>
    ? T
    : G[K] extends SettingFamily
      ? ReadonlyMap<string, string>
      : never;
};

export function isFamily(entry: Setting<unknown> | SettingFamily): entry is SettingFamily {
  return 'prefix' in entry;
}

const ON_VALUES = new Set(['true', '1', 'si', 'sí']);
const OFF_VALUES = new Set(['false', '0', 'no']);

/** Off unless `true`, `1` or `si` (any case); a value that is neither on nor off is bad. */
export function offUnlessOn(raw: string | undefined): Parsed<boolean> {
  if (raw === undefined) return { value: false };
  const lower = raw.toLowerCase();
  if (ON_VALUES.has(lower)) return { value: true };
  return OFF_VALUES.has(lower) ? { value: false } : { value: false, bad: true };
}

/** On unless `false`, `0` or `no` (any case); anything else is on. */
export function onUnlessOff(raw: string | undefined): Parsed<boolean> {
  return { value: raw === undefined || !OFF_VALUES.has(raw.toLowerCase()) };
}

/** The text as it is (trimmed); absent is undefined. */
export function plainText(raw: string | undefined): Parsed<string | undefined> {
  return { value: raw };
}

/** One line, at most `max` characters; absent or blank is null. */
export function oneLine(max: number) {
  return (raw: string | undefined): Parsed<string | null> => {
    const line = raw?.replace(/\s+/g, ' ').trim();
    return { value: line ? line.slice(0, max) : null };
  };
}

/** A whole number of at most three digits within [min, max]; else `fallback`, bad. */
export function wholeNumber(min: number, max: number, fallback: number) {
  return (raw: string | undefined): Parsed<number> => {
    if (raw === undefined) return { value: fallback };
    const number = /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
    return number >= min && number <= max ? { value: number } : { value: fallback, bad: true };
  };
}

/**
 * A group's values from the raw `ini` texts (trimmed; absent or blank keys absent), and the keys
 * whose text was not one they take, with that text where it may be quoted.
 */
export function parseGroup<G extends SettingsGroup>(
  group: G,
  raw: ReadonlyMap<string, string>,
): { values: SettingsOf<G>; bad: { key: string; value?: string }[] } {
  const values: Record<string, unknown> = {};
  const bad: { key: string; value?: string }[] = [];
  for (const [name, entry] of Object.entries(group)) {
    if (isFamily(entry)) {
      const family = new Map<string, string>();
      for (const [key, value] of raw) {
        if (key.startsWith(entry.prefix)) family.set(key.slice(entry.prefix.length), value);
      }
      values[name] = family;
      continue;
    }
    const text = raw.get(entry.key);
    const parsed = entry.parse(text);
    if (parsed.bad)
      bad.push({ key: entry.key, ...(entry.quotable && text !== undefined && { value: text }) });
    values[name] = parsed.value;
  }
  // Each name was given the value its entry's type says: the mapped type cannot follow the loop.
  return { values: values as SettingsOf<G>, bad };
}
