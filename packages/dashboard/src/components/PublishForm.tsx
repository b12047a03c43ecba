/** Publish a test message (operation push) and show the item's result: queued, duplicate or failed. */
import { useState } from 'preact/hooks';
import type { PushResultItem } from '@queen/client';
import { broker, curlOf, http, planned } from '../api.js';
import { toast } from './toasts.js';
import { Modal, copy } from './ui.js';

/** What the form shows: the item's push result, or a failure without one. */
type PushResult = PushResultItem | { status: 'failed'; transaction_id?: undefined; error: string };

/** The form in a modal. */
export function PublishForm(props: { queue: string; onClose: () => void; onDone: () => void }) {
  const [partition, setPartition] = useState('');
  const [payload, setPayload] = useState('{\n  "hello": "world"\n}');
  const [transactionId, setTransactionId] = useState('');
  const [traceId, setTraceId] = useState('');
  const [result, setResult] = useState<PushResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  let parsed: unknown = undefined;
  let parseError: string | null = null;
  try {
    parsed = JSON.parse(payload);
  } catch (e) {
    parseError = `payload is not JSON: ${(e as Error).message}`;
  }
  const item = { queue: props.queue, ...(partition.trim() !== '' ? { partition: partition.trim() } : {}), payload: parsed, ...(transactionId.trim() !== '' ? { transactionId: transactionId.trim() } : {}), ...(traceId.trim() !== '' ? { traceId: traceId.trim() } : {}) };
  const send = async (): Promise<void> => {
    setError(null);
    try {
      const res = await broker.push(http('READ_WRITE'), { items: [item] });
      const first: PushResult = res[0] ?? { status: 'failed', error: 'no result' };
      setResult(first);
      if (first.status === 'failed') setError(first.error);
      else {
        toast(`Message ${first.status}`);
        props.onDone();
      }
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <Modal title={`Publish to ${props.queue}`} onClose={props.onClose} footer={
      <>
        <button type="button" class="btn plain" onClick={() => copy(curlOf(planned(broker.routes.push, {}, undefined, { items: [item] })), 'curl command copied')}>Copy as curl</button>
        <span class="grow" />
        <button type="button" class="btn plain" onClick={props.onClose}>Close</button>
        <button type="button" class="btn primary" data-testid="publish-submit" disabled={parseError !== null} onClick={() => void send()}>Publish</button>
      </>
    }>
      <label class="field">Partition (empty: Default)<input name="partition" value={partition} onInput={(e) => setPartition((e.target as HTMLInputElement).value)} /></label>
      <label class="field">Payload (JSON)<textarea name="payload" rows={6} value={payload} onInput={(e) => setPayload((e.target as HTMLTextAreaElement).value)} /></label>
      <label class="field">transactionId (optional)<input name="transactionId" value={transactionId} onInput={(e) => setTransactionId((e.target as HTMLInputElement).value)} /></label>
      <label class="field">traceId (optional UUID)<input name="traceId" value={traceId} onInput={(e) => setTraceId((e.target as HTMLInputElement).value)} /></label>
      {parseError !== null && <div class="note warn">{parseError}</div>}
      {result !== null && <div class={`note ${result.status === 'failed' ? 'bad' : 'ok'}`} data-testid="publish-result">{result.status}{typeof result.transaction_id === 'string' ? ` · ${result.transaction_id}` : ''}</div>}
      {error !== null && <div class="note bad" data-testid="action-error">{error}</div>}
    </Modal>
  );
}
