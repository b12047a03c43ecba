#!/usr/bin/env node
/** The `queenctl` executable: runs the CLI and exits with its code once output is flushed. */
import { main } from './cli.js';

// `queenctl ... | head -1`: a closed pipe ends the run quietly, as it does for other Unix tools.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
