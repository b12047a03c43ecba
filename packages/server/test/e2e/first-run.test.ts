/**
 * First run (issue 13 item 11): one human ready line naming the version, the URL and the database; pretty
 * log lines with LOG_FORMAT=pretty (the default on a terminal), JSON lines otherwise.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { prettyLine } from '../../src/logger.js';
import { readyLine } from '../../src/ready-line.js';
import { createDatabase, startBroker } from '../support/harness.js';

const VERSION = (JSON.parse(fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../package.json'), 'utf8')) as { version: string }).version;
const READY = new RegExp(`Queen ${VERSION.replace(/\./g, '\\.')} listening on http://127\\.0\\.0\\.1:\\d+ \\(PostgreSQL at [^ ]+:\\d+/queen_test_\\w+\\)`);

describe('the ready line', () => {
  test('embedded, external and URL databases, wildcard hosts', () => {
    const embedded = loadConfig({ PORT: '6632', QUEEN_DATA_DIR: '/srv/app/.queen' });
    assert.equal(readyLine(embedded, '1.2.3', 6632, '/srv/app'), 'Queen 1.2.3 listening on http://localhost:6632 (embedded PostgreSQL at ./.queen/pgdata)');
    const pinned = loadConfig({ PORT: '6632', QUEEN_DATA_DIR: '/srv/app/.queen', QUEEN_EMBEDDED_PG_PORT: '7733' });
    assert.equal(readyLine(pinned, '1.2.3', 6632, '/srv/app'), 'Queen 1.2.3 listening on http://localhost:6632 (embedded PostgreSQL at ./.queen/pgdata, port 7733)');
    const external = loadConfig({ HOST: '10.0.0.5', PG_HOST: 'db.internal', PG_PORT: '5433', PG_DB: 'queen', PG_PASSWORD: 'secret' });
    assert.equal(readyLine(external, '1.2.3', 7000), 'Queen 1.2.3 listening on http://10.0.0.5:7000 (PostgreSQL at db.internal:5433/queen)');
    const url = loadConfig({ HOST: '::', DATABASE_URL: 'postgres://u:secret@pg:6543/app' });
    assert.equal(readyLine(url, '1.2.3', 1), 'Queen 1.2.3 listening on http://localhost:1 (PostgreSQL at pg:6543/app)');
  });

  test('pretty lines: time, level, message, fields; an error with its stack', () => {
    const line = prettyLine(JSON.stringify({ level: 40, time: Date.UTC(2026, 0, 1, 12, 0, 1), pid: 1, serverId: 's', msg: 'slow', queue: 'q', n: 2 }));
    assert.match(line, /^\d\d:\d\d:\d\d WARN  slow queue=q n=2\n$/);
    const error = prettyLine(JSON.stringify({ level: 50, time: 0, msg: 'failed', err: { message: 'boom', stack: 'Error: boom\n    at x' } }));
    assert.match(error, /ERROR failed\n {2}Error: boom\n {6}at x\n$/);
  });
});

describe('broker output', () => {
  for (const format of ['pretty', 'json'] as const) {
    test(`LOG_FORMAT=${format}: the ready line once, ${format === 'pretty' ? 'human lines' : 'every line JSON'}`, async () => {
      const db = await createDatabase();
      const broker = await startBroker(db, { LOG_LEVEL: 'info', LOG_FORMAT: format });
      try {
        await new Promise((r) => setTimeout(r, 100));
        const lines = broker.output().split('\n').filter((l) => l !== '');
        if (format === 'pretty') {
          const ready = lines.filter((l) => READY.test(l));
          assert.equal(ready.length, 1, broker.output());
          assert.match(ready[0]!, /^\d\d:\d\d:\d\d INFO  Queen /);
          assert.ok(lines.every((l) => !l.startsWith('{')), broker.output());
          // A fresh database: the schema line is one short line a person reads (counts, the newest migration).
          const schema = lines.filter((l) => l.includes('schema updated'));
          assert.equal(schema.length, 1, broker.output());
          assert.match(schema[0]!, /^\d\d:\d\d:\d\d INFO  schema updated: \d+ migrations applied \(up to \d{4}_[\w-]+\.sql\), \d+ SQL functions installed$/);
          assert.ok(schema[0]!.length < 120, schema[0]);
        } else {
          const records = lines.map((l) => JSON.parse(l) as { msg: string });
          assert.equal(records.filter((r) => READY.test(r.msg)).length, 1, broker.output());
          assert.equal(records.filter((r) => /listening/.test(r.msg)).length, 1);
        }
      } finally {
        await broker.stop();
        await db.close();
      }
    });
  }
});
