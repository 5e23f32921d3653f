import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { CommandPlatform, CommandPlatformOptions } from './platform.js';

/*
 * A command of `npm run cli` (docs/cli.md), declared by the face that owns it as it declares its
 * routes: its usage text, its options and what it does. src/cli.ts is the table of them.
 */

/** A command line the command cannot take: the CLI prints it and the usage, and exits 2. */
export class UsageError extends Error {}

export function positiveInteger(name: string, value: string | undefined): number {
  if (value === undefined || !/^[1-9]\d*$/.test(value)) {
    throw new UsageError(`--${name} must be a positive integer`);
  }
  return Number(value);
}

export function optionalPositiveInteger(name: string, value: string | undefined) {
  return value === undefined ? undefined : positiveInteger(name, value);
}

export function required(name: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O }>
>['values'];

/** What the CLI hands a command; everything it opens is closed when the command ends. */
export interface CommandContext<S> {
  /** A line on stdout: what the command did. */
  say: (message: string) => void;
  /** A line on stderr: what went wrong beside it (a tenant's bad setting). */
  warn: (message: string) => void;
  /** The system database's URL (the embedded development one without DATABASE_URL). */
  database: () => Promise<string>;
  /** The platform as a command opens it (platform/cli/platform.ts), once. */
  open: (options?: CommandPlatformOptions) => Promise<CommandPlatform>;
  /** The settings its module declares, filled from the configuration by the CLI. */
  settings: () => Promise<S>;
}

/** 0, or 1 when something the command was asked to do failed (the CLI's exit code). */
export type ExitCode = 0 | 1;

export interface Command<S> {
  /** Its lines of the CLI's usage text: the synopsis, then what it does (indented). */
  usage: string;
  run(args: string[], context: CommandContext<S>): Promise<ExitCode>;
}

/**
 * A command from its options (node:util parseArgs, strict: an unknown option fails it) and its
 * run; `options: undefined` takes the rest of the line as it is, unread.
 */
export function defineCommand<S, O extends Options = Options>(definition: {
  usage: string;
  options: O | undefined;
  run(values: Values<O>, context: CommandContext<S>): Promise<ExitCode>;
}): Command<S> {
  return {
    usage: definition.usage,
    run(args, context) {
      const values: Values<O> =
        definition.options === undefined
          ? ({} as Values<O>)
          : parseArgs({ args, options: definition.options }).values;
      return definition.run(values, context);
    },
  };
}
