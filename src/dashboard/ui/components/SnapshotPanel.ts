import { useEffect, useState } from 'preact/hooks';
import type { SnapshotStatus } from '../../../snapshots/Snapshot';
import { html } from '../html';
import { api } from '../api';
import { Diff } from './ComparePanel';

const WORDS: Record<SnapshotStatus['status'], { text: string; tone: string }> = {
  matches: { text: 'matches its snapshot', tone: 'tag-ok' },
  differs: { text: 'differs from its snapshot', tone: 'tag-error' },
  new: { text: 'new: no snapshot yet', tone: 'tag-warn' },
  unreadable: { text: 'snapshot file unreadable', tone: 'tag-error' },
};

/** A test capture against its committed snapshot (`probe check`): the verdict, and what differs in the diff view. */
export function SnapshotPanel({ captureId }: { captureId: string }) {
  const [status, setStatus] = useState<SnapshotStatus | null>(null);
  useEffect(() => {
    let live = true;
    api.snapshot(captureId).then(
      (found) => live && setStatus(found),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [captureId]);
  if (!status) return null;
  const word = WORDS[status.status];
  return html`<div class="card snapshot" data-testid="snapshot">
    <p>
      <span class=${`tag ${word.tone}`} data-testid="snapshot-status" data-status=${status.status}>Snapshot: ${word.text}</span>
      <span class="mono small muted"> ${status.file}</span>
      ${status.error ? html`<span class="small"> ${status.error}</span>` : null}
    </p>
    ${(status.outside ?? []).map(
      (call) =>
        html`<p class="tone-error-text small" data-testid="snapshot-outside">Calls a host outside snapshots.hosts: <span class="mono">${call.url}</span> <span class="mono muted">${call.line ?? ''}</span></p>`,
    )}
    ${status.diff ? html`<${Diff} diff=${status.diff} durations=${false} />` : null}
  </div>`;
}
