/**
 * Migration `/migration` (docs/dashboard.md, docs/operations.md "Moving to another PostgreSQL"): the target form,
 * a connection test that names the server version and what a move there would meet, start (online or offline),
 * the progress (status, phase, tables copied, lag, the switch's pause) polled every second, the validation table
 * and cancel. ADMIN only, as the routes are.
 */
import { useState } from 'preact/hooks';
import { broker, http } from '../api.js';
import { Action, Card, Empty, ErrorNote, Facts, TextInput } from '../components/ui.js';
import { toast } from '../components/toasts.js';
import { fmtCount, fmtTime } from '../format.js';
import { useLoad } from '../load.js';
import type { MigrationConnection, MigrationTarget, MigrationValidation } from '@queen/client/api';

const RUNNING = new Set(['preparing', 'copying', 'catching_up', 'switching', 'dumping', 'restoring']);

function TargetForm(props: { running: boolean; onStarted: () => void }) {
  const [form, setForm] = useState({ host: '', port: '5432', database: '', user: '', password: '', ssl: false, offline: false });
  const [tested, setTested] = useState<MigrationConnection | null>(null);
  const [error, setError] = useState<string | null>(null);
  const set = (key: keyof typeof form) => (value: string) => setForm({ ...form, [key]: value });
  const target = (): MigrationTarget => ({ host: form.host, port: Number(form.port), database: form.database, user: form.user, password: form.password, ssl: form.ssl });
  const run = (work: () => Promise<void>) => () => void work().then(() => setError(null), (e: unknown) => setError((e as Error).message));
  return (
    <Card title="Target PostgreSQL" testid="migration-form">
      <div class="stack">
        <div class="row">
          <TextInput label="Host" value={form.host} onInput={set('host')} testid="mig-host" />
          <TextInput label="Port" value={form.port} onInput={set('port')} testid="mig-port" />
          <TextInput label="Database" value={form.database} onInput={set('database')} testid="mig-database" />
          <TextInput label="User" value={form.user} onInput={set('user')} testid="mig-user" />
          <TextInput label="Password" type="password" value={form.password} onInput={set('password')} testid="mig-password" />
          <label class="field inline"><input type="checkbox" checked={form.ssl} onChange={(e) => setForm({ ...form, ssl: (e.target as HTMLInputElement).checked })} /> SSL</label>
          <label class="field inline"><input type="checkbox" data-testid="mig-offline" checked={form.offline} onChange={(e) => setForm({ ...form, offline: (e.target as HTMLInputElement).checked })} /> Offline (source without wal_level=logical)</label>
        </div>
        <div class="row">
          <Action needs="ADMIN" testid="mig-test" onClick={run(async () => {
            setTested(null);
            setTested(await broker.testMigrationConnection(http('ADMIN'), target()));
          })}>Test connection</Action>
          <Action needs="ADMIN" kind="primary" testid="mig-start" disabled={props.running} onClick={run(async () => {
            await broker.startMigration(http('ADMIN'), { ...target(), mode: form.offline ? 'offline' : 'online' });
            toast('Migration started');
            props.onStarted();
          })}>Start migration</Action>
        </div>
        <ErrorNote error={error} />
        {tested !== null && (
          <Facts testid="mig-tested" rows={[
            ['Server', `PostgreSQL ${tested.version ?? '?'}${tested.supported === false ? ' (too old: 14 or newer is required)' : ''}`],
            ['Empty', tested.empty === true ? 'yes' : 'no: a move needs an empty database'],
            ['Online possible', tested.online === true ? 'yes' : `no (source wal_level=${tested.sourceWalLevel ?? '?'}, subscribe ${tested.canSubscribe === true ? 'allowed' : 'not allowed'}): use offline`],
          ]} />
        )}
      </div>
    </Card>
  );
}

function Validation() {
  const [result, setResult] = useState<MigrationValidation | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <Card title="Validation" actions={<Action needs="ADMIN" testid="mig-validate" onClick={() => void broker.validateMigration(http('ADMIN')).then(setResult, (e: unknown) => setError((e as Error).message))}>Compare row counts</Action>}>
      <ErrorNote error={error} />
      {result === null ? <Empty>Row counts per table on the source and the target.</Empty> : (
        <table class="list" data-testid="mig-validation"><thead><tr><th>Table</th><th>Source</th><th>Target</th><th>Match</th></tr></thead><tbody>
          {result.tables.map((r) => <tr key={r.table}><td>{r.table}</td><td class="num">{fmtCount(r.source)}</td><td class="num">{fmtCount(r.target)}</td><td>{r.match ? 'yes' : 'no'}</td></tr>)}
        </tbody></table>
      )}
    </Card>
  );
}

/** The Migration view. */
export function MigrationView() {
  const status = useLoad(() => broker.getMigrationStatus(http('ADMIN')), [], 1000);
  const s = status.data;
  const running = s !== undefined && RUNNING.has(s.status);
  const p = s?.progress ?? {};
  return (
    <div class="stack">
      <ErrorNote error={status.error} stale={s !== undefined} />
      <Card title="Status" testid="migration-status" actions={running && s?.status !== 'switching' && s?.status !== 'dumping' && s?.status !== 'restoring'
        ? <Action needs="ADMIN" kind="danger" testid="mig-cancel" onClick={() => void broker.resetMigration(http('ADMIN')).then(() => status.reload(), (e: unknown) => toast((e as Error).message, 'bad'))}>Cancel</Action>
        : s !== undefined && s.status !== 'idle' ? <Action needs="ADMIN" testid="mig-clear" onClick={() => void broker.resetMigration(http('ADMIN')).then(() => status.reload(), (e: unknown) => toast((e as Error).message, 'bad'))}>Clear</Action> : undefined}>
        {s === undefined ? <div class="skeleton" /> : (
          <Facts rows={[
            ['Status', <span data-testid="mig-status">{s.status}</span>],
            ['Mode', s.mode ?? '–'],
            ['Target', s.target === undefined ? '–' : `${s.target.user}@${s.target.host}:${s.target.port}/${s.target.database}`],
            ['Phases', s.mode === 'offline' ? 'preparing → dumping → restoring → complete' : 'preparing → copying → catching_up → switching → complete'],
            ['Tables copied', typeof p.tables === 'number' ? `${String(p.copied ?? 0)} / ${p.tables}` : '–'],
            ['Lag', typeof p.lagBytes === 'number' ? `${fmtCount(p.lagBytes)} B` : '–'],
            ['Pause of the switch', typeof p.pauseMs === 'number' ? `${p.pauseMs} ms` : '–'],
            ['Started', fmtTime(s.startedAt ?? null)],
            ['Error', s.error ?? '–'],
          ]} />
        )}
      </Card>
      <TargetForm running={running} onStarted={status.reload} />
      <Validation />
    </div>
  );
}
