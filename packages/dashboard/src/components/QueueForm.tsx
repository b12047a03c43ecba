/**
 * Create or edit a queue (operation configure, a full replace of the options of docs/api.md 2.2): the form is
 * prefilled with the current configuration when editing, and the broker's error text is shown inline.
 */
import { useState } from 'preact/hooks';
import { broker, curlOf, http, planned } from '../api.js';
import type { QueueConfig } from '../types.js';
import { toast } from './toasts.js';
import { Modal, copy } from './ui.js';

/** The option defaults of docs/api.md 2.2. */
export const DEFAULT_CONFIG: QueueConfig = {
  leaseTime: 300, retryLimit: 3, retryDelay: 0, maxSize: 0, ttl: 3600, priority: 0, delayedProcessing: 0, windowBuffer: 0,
  minPopWaitTime: 0, retentionSeconds: 0, completedRetentionSeconds: 0, retentionEnabled: false, encryptionEnabled: false,
  maxWaitTimeSeconds: 0, deadLetterQueue: false, dlqAfterMaxRetries: false,
};

const NUMERIC: [keyof QueueConfig, string][] = [
  ['leaseTime', 'Lease time (s)'], ['retryLimit', 'Retry limit'], ['retryDelay', 'Retry delay (ms)'], ['ttl', 'TTL (s)'],
  ['maxSize', 'Max queue size (0 = ∞)'], ['priority', 'Priority'], ['delayedProcessing', 'Delayed processing (s)'],
  ['windowBuffer', 'Window buffer (s)'], ['minPopWaitTime', 'Min pop wait (ms)'], ['retentionSeconds', 'Retention (s)'],
  ['completedRetentionSeconds', 'Completed retention (s)'], ['maxWaitTimeSeconds', 'Max wait time (s)'],
];
const FLAGS: [keyof QueueConfig, string][] = [
  ['deadLetterQueue', 'Dead-letter queue'], ['dlqAfterMaxRetries', 'DLQ after max retries'], ['retentionEnabled', 'Retention enabled'], ['encryptionEnabled', 'Encryption at rest'],
];

/** The form in a modal; `existing` switches it to edit mode. */
export function QueueForm(props: { existing?: { name: string; namespace: string | null; task: string | null; config: QueueConfig }; onClose: () => void; onDone: (name: string) => void }) {
  const [name, setName] = useState(props.existing?.name ?? '');
  const [namespace, setNamespace] = useState(props.existing?.namespace ?? '');
  const [task, setTask] = useState(props.existing?.task ?? '');
  const [config, setConfig] = useState<QueueConfig>({ ...DEFAULT_CONFIG, ...props.existing?.config });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const body = { queue: name.trim(), ...(namespace.trim() !== '' ? { namespace: namespace.trim() } : {}), ...(task.trim() !== '' ? { task: task.trim() } : {}), options: config };
  const submit = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await broker.configure(http('READ_WRITE'), body);
      toast(`Queue ${body.queue} ${props.existing === undefined ? 'created' : 'configured'}`);
      props.onDone(body.queue);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal wide title={props.existing === undefined ? 'Create queue' : `Configure ${props.existing.name}`} onClose={props.onClose} footer={
      <>
        <button type="button" class="btn plain" onClick={() => copy(curlOf(planned(broker.routes.configure, {}, undefined, body)), 'curl command copied')}>Copy as curl</button>
        <span class="grow" />
        <button type="button" class="btn plain" onClick={props.onClose}>Cancel</button>
        <button type="button" class="btn primary" data-testid="queue-form-submit" disabled={busy} onClick={() => void submit()}>{props.existing === undefined ? 'Create' : 'Save'}</button>
      </>
    }>
      <form class="form-grid" data-testid="queue-form" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
        <label class="field">Name<input name="queue" value={name} disabled={props.existing !== undefined} onInput={(e) => setName((e.target as HTMLInputElement).value)} /></label>
        <label class="field">Namespace<input name="namespace" value={namespace} onInput={(e) => setNamespace((e.target as HTMLInputElement).value)} /></label>
        <label class="field">Task<input name="task" value={task} onInput={(e) => setTask((e.target as HTMLInputElement).value)} /></label>
        {NUMERIC.map(([key, label]) => (
          <label class="field" key={key}>{label}<input name={key} type="number" value={String(config[key])} onInput={(e) => setConfig({ ...config, [key]: Number((e.target as HTMLInputElement).value) })} /></label>
        ))}
        {FLAGS.map(([key, label]) => (
          <label class="field check" key={key}><input name={key} type="checkbox" checked={config[key] === true} onChange={(e) => setConfig({ ...config, [key]: (e.target as HTMLInputElement).checked })} />{label}</label>
        ))}
        <button type="submit" hidden />
      </form>
      <p class="muted">Configure replaces every option: fields left at their value are sent as shown.</p>
      {error !== null && <div class="note bad" data-testid="action-error">{error}</div>}
    </Modal>
  );
}
