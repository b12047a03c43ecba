/**
 * Reading and settling messages (docs/cli.md): `pop`, `ack` and `tail`. Both `pop` and `tail` print one
 * NDJSON line per message whatever `-o` says, so their output pipes into `ack --batch -`. `tail --auto-ack` acks
 * what it printed after printing it; Ctrl-C stops new pops, lets the acks of printed messages finish and exits 0.
 */
import type { Command } from 'commander';
import { registerAck } from './consume/ack.js';
import { registerPop } from './consume/pop.js';
import { registerTail } from './consume/tail.js';

/** Registers `pop`, `ack` and `tail`. */
export function registerConsume(program: Command): void {
  registerPop(program);
  registerAck(program);
  registerTail(program);
}
