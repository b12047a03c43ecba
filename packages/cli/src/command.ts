/**
 * How commands are declared: `sub()` adds a command with its description, aliases and an example for
 * `--help`; `action()` binds a handler that receives the run's {@link Runtime}, its own options and its
 * arguments. Flag value parsers (`int`, ...) turn bad values into commander errors (exit 1).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { Runtime, type GlobalFlags } from './runtime.js';

/** Adds a sub-command with a description, aliases and one or more examples shown by `--help`. */
export function sub(parent: Command, spec: string, description: string, example: string | string[], aliases: string[] = []): Command {
  const cmd = parent.command(spec).description(description);
  for (const alias of aliases) cmd.alias(alias);
  const lines = (Array.isArray(example) ? example : [example]).map((e) => `  $ ${e}`).join('\n');
  cmd.addHelpText('after', `\nExample${Array.isArray(example) && example.length > 1 ? 's' : ''}:\n${lines}\n`);
  return cmd;
}

/** Options of a command as commander parsed them. */
export type Opts = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- commander's option bag; each handler reads its own flags

/** Binds a handler; the Runtime is built from the global flags and disposed after the handler ends. */
export function action(cmd: Command, handler: (rt: Runtime, opts: Opts, ...args: string[]) => Promise<void>): Command {
  cmd.action(async (...received: unknown[]) => {
    const command = received[received.length - 1] as Command;
    const args = received.slice(0, -2) as string[];
    const rt = new Runtime(command.optsWithGlobals() as GlobalFlags);
    try {
      await handler(rt, command.opts(), ...args);
    } finally {
      rt.dispose();
    }
  });
  return cmd;
}

/** A non-negative integer flag value. */
export function int(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError('must be a non-negative integer');
  return Number(value);
}

/** A positive integer flag value. */
export function positive(value: string): number {
  const n = int(value);
  if (n < 1) throw new InvalidArgumentError('must be at least 1');
  return n;
}

/** A boolean flag value given as `true`/`false` (for `--flag=false`). */
export function bool(value: string): boolean {
  if (value === 'true' || value === '1' || value === 'yes') return true;
  if (value === 'false' || value === '0' || value === 'no') return false;
  throw new InvalidArgumentError('must be true or false');
}
