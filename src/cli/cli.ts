import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import type { AppServices } from '../services.js';
import type { Config } from '../config/config.js';
import type { DatabaseHandle } from '../db/database.js';
import type { Actor } from '../kernel/actor.js';
import { AppError } from '../kernel/errors.js';

/** Bad invocation: unknown command or flag, a missing or malformed value. Exit code 2, one line, no stack. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface CliContext {
  /** Opens the database (migrating it) and builds the services; closed by the runner. */
  services(): Promise<AppServices>;
  /** Opens the database without building the services (and without migrating it). */
  database(): Promise<DatabaseHandle>;
  config(): Config;
  out(line: string): void;
  /** The operator, acting as an instance admin. */
  operator: Actor;
}

export interface Command {
  /** `plans list`, `migrate`, ... */
  name: string;
  summary: string;
  /** The flags after the name, as shown in the help (`--email E --password P [--admin]`). */
  usage?: string;
  /** Longer help: what it does, examples. */
  help?: string;
  options?: NonNullable<ParseArgsConfig['options']>;
  /** The flag (of `options`) that one bare argument fills: `mail show ID` is `mail show --id ID`. */
  positional?: string;
  run(values: Record<string, string | boolean | undefined>, ctx: CliContext): Promise<number | void>;
}

export function parseFlags(command: Command, args: string[]): Record<string, string | boolean | undefined> {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...command.options, help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } },
      allowPositionals: command.positional !== undefined,
      strict: true,
    });
    const flags = values as Record<string, string | boolean | undefined>;
    if (positionals.length > 1 || (positionals.length === 1 && flags[command.positional!] !== undefined)) {
      throw new UsageError(`Unexpected argument "${positionals.at(-1)}"`);
    }
    if (positionals.length === 1) flags[command.positional!] = positionals[0];
    return flags;
  } catch (error) {
    // node:util parseArgs explains unknown flags, missing values and stray arguments in one sentence.
    throw new UsageError((error as Error).message.split('\n')[0]!);
  }
}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** An integer flag; `undefined` when absent. */
export function integer(values: Record<string, unknown>, name: string, { min = -2_000_000_000, max = 2_000_000_000 } = {}): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !/^-?\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${String(v)}"`);
  }
  return Number(v);
}

/**
 * Checks an input against the same TypeBox schema the API validates it with, so the CLI and the API accept exactly
 * the same values. A failure names the flag that holds the field.
 */
export function checked<T>(schema: TSchema, input: Record<string, unknown>, flagOf: (field: string) => string = (f) => f.replace(/_/g, '-')): T {
  const clean = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  const first = [...Value.Errors(schema, clean)][0] as { instancePath?: string; message?: string } | undefined;
  if (first) {
    const field = (first.instancePath ?? '').split('/')[1];
    throw new UsageError(field ? `--${flagOf(field)}: ${first.message ?? 'is invalid'}` : (first.message ?? 'invalid input'));
  }
  return clean as T;
}

/** A service's refusal (404, 409, 400, 502 ...) as one line: the API's detail and field errors. */
export function describeAppError(error: AppError): string {
  const fields = error.errors?.map((e) => `${e.path}: ${e.message}`).join('; ');
  return `${error.message}${fields && fields !== error.message ? ` (${fields})` : ''}`;
}

/** Rows as an aligned text table (the default output of the list commands; `--json` prints JSON instead). */
export function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const text = (v: unknown) => (v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => text(r[c]).length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => text(r[c]))))].join('\n');
}

export function print(ctx: CliContext, values: Record<string, unknown>, data: unknown, columns?: string[]): void {
  if (values.json || !columns || !Array.isArray(data)) ctx.out(JSON.stringify(data, null, 2));
  else ctx.out(table(data as Record<string, unknown>[], columns));
}
