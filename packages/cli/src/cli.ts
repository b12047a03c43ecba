/**
 * The `queenctl` program: global flags (docs/cli.md), the command tree (§6) and the mapping of every failure to
 * one line on stderr and an exit code (§4). Command modules are imported eagerly (they only declare flags);
 * what they need at run time (the SDK, yaml, tables) is loaded when a command runs.
 */
import { Command, CommanderError } from 'commander';
import { CliError, EXIT, toCliError } from './errors.js';
import { registerAdmin } from './commands/admin.js';
import { registerAuth } from './commands/auth.js';
import { registerBench } from './commands/bench.js';
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerConsume } from './commands/consume.js';
import { registerGroups } from './commands/groups.js';
import { registerManifests } from './commands/manifests.js';
import { registerMessages } from './commands/messages.js';
import { registerMigrate } from './commands/migrate.js';
import { registerPush } from './commands/push.js';
import { registerQueues } from './commands/queues.js';
import { registerTop } from './commands/top.js';
import { versionLine } from './version.js';

/** Builds the whole command tree. */
export function buildProgram(): Command {
  const program = new Command('queenctl')
    .description('Operate a Queen broker: health, lag, tail, push, replay, DLQ, manifests, bench')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: (text, write) => write(`queenctl: ${text.replace(/^error: /, '').trimEnd()}\n`) })
    .option('--context <name>', 'context from the config file')
    .option('--server <url>', 'broker URL (beats env and context)')
    .option('--token <jwt>', 'bearer token (beats env and context)')
    .option('-o, --output <format>', 'table, wide, json, ndjson (jsonl), yaml, raw, jsonpath=<expr> (default: table on a TTY, json when piped)')
    .option('--color', 'force colour')
    .option('--no-color', 'no colour')
    .option('--insecure', 'skip TLS certificate verification')
    .option('-q, --quiet', 'suppress success one-liners and summaries')
    .option('--no-headers', 'tables without the header row')
    .option('--config <path>', 'config file (default $QUEEN_CONFIG or ~/.queen/config.yaml)')
    .version(versionLine(), '--version', 'print the version line')
    .addHelpText('after', `\nExamples:\n  $ queenctl --server http://localhost:6632 ping\n  $ queenctl queue list -o json\n  $ queenctl tail orders -f\n\nDocumentation: docs/cli.md (queenctl docs)\n`);
  registerTop(program);
  registerConsume(program);
  registerPush(program);
  registerManifests(program);
  registerQueues(program);
  registerMessages(program);
  registerGroups(program);
  registerAdmin(program);
  registerMigrate(program);
  registerConfig(program);
  registerAuth(program);
  registerBench(program);
  registerCompletion(program);
  return program;
}

/**
 * `--group` is what Kafka's tools call the consumer group: accepted everywhere as `--cg` (docs/cli.md), so the
 * first try of someone coming from kafka-consumer-groups works rather than failing with "unknown option".
 */
export function groupAlias(argv: string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((arg, i) => (end !== -1 && i > end ? arg : arg === '--group' ? '--cg' : arg.startsWith('--group=') ? `--cg=${arg.slice('--group='.length)}` : arg));
}

/** Runs the CLI on `argv` (without node and script); resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(groupAlias(argv), { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; parse errors were already printed by outputError.
      return error.exitCode === 0 ? EXIT.ok : EXIT.user;
    }
    const failure = error instanceof CliError ? error : toCliError(error);
    if (!failure.silent && failure.message) process.stderr.write(`queenctl: ${failure.message}\n`);
    return failure.exitCode;
  }
}
