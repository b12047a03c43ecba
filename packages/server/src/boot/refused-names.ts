/**
 * The start-up report of stored names the name rule refuses (docs/api.md 1.10): `.` and `..` created before
 * the rule (or written into the tables by hand). Nothing is renamed or deleted for the operator: the routes
 * and SQL functions that create or change things refuse such names, so the data under them can only be read
 * or removed. Each one is a warning line saying how to rename or delete it, at every start-up until none is
 * left (docs/operations.md "Names a URL cannot carry").
 */
import type { Logger } from '../logger.js';
import type { Store } from '../store/index.js';
import type { RefusedName } from '../store/resources.js';
import { routeUrl } from '../http/route.js';
import { QUEUE_PATH } from '../http/routes/queues.js';
import { QUEUE_CLEAR_PATH } from '../http/routes/queue-clear.js';
import { GROUP_QUEUE_PATH } from '../http/routes/consumer-groups.js';

/** Names listed one per line; more are counted. */
const SHOWN = 20;

/** A SQL string literal of `value`. */
const literal = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/** `curl` sending the path as it is: clients that normalise would resolve a `.`/`..` segment away. */
const curlDelete = (path: string): string => `curl --path-as-is -X DELETE 'http://<broker>${path}'`;

/** The way to rename or delete one refused name, as one line an operator can act on. */
export function remedy(found: RefusedName): string {
  const name = JSON.stringify(found.name);
  const queue = found.queue ?? '';
  switch (found.kind) {
    case 'queue':
      return `queue ${name}: rename it with SQL (UPDATE queen.queues SET name = '<new name>' WHERE name = ${literal(found.name)}) ` +
        `or delete it (${curlDelete(routeUrl(QUEUE_PATH, { queue: found.name }))})`;
    case 'partition':
      return `partition ${name} of queue ${JSON.stringify(queue)}: rename it with SQL (UPDATE queen.partitions SET name = '<new name>' ` +
        `WHERE id = ${literal(found.id ?? '')}) or empty it (${curlDelete(routeUrl(QUEUE_CLEAR_PATH, { queue }, { partition: found.name }))}; ` +
        'partition cleanup then removes it after PARTITION_CLEANUP_DAYS)';
    case 'consumer group':
      return `consumer group ${name} on queue ${JSON.stringify(queue)}: delete it ` +
        `(${curlDelete(routeUrl(GROUP_QUEUE_PATH, { group: found.name, queue }))}) and consume under another name`;
    case 'namespace':
    case 'task':
      return `${found.kind} ${name} of queue ${JSON.stringify(queue)}: rename it with SQL ` +
        `(UPDATE queen.queues SET ${found.kind} = '<new name>' WHERE name = ${literal(queue)})`;
    case 'stream query':
      return `stream query ${name}: rename it with SQL (UPDATE queen_streams.queries SET name = '<new name>' WHERE name = ${literal(found.name)}) ` +
        'and register it under that name';
  }
}

/** Logs a warning per stored name the rule refuses (at most SHOWN lines, then a count); silent when there is none. */
export async function reportRefusedNames(store: Pick<Store, 'refusedNameList'>, log: Logger): Promise<void> {
  const found = await store.refusedNameList({ limit: SHOWN + 1 });
  if (found.length === 0) return;
  log.warn('stored names the name rule refuses ("." and "..", docs/api.md 1.10) were created before it: nothing was changed; ' +
    'rename or delete each (docs/operations.md "Names a URL cannot carry"):');
  for (const name of found.slice(0, SHOWN)) log.warn(remedy(name));
  if (found.length > SHOWN) log.warn(`and more: a later start-up lists them once these ${SHOWN} are renamed or deleted`);
}
