import { useState } from 'preact/hooks';
import { html } from '../html';
import { copyText } from '../clipboard';

/** A button that copies `text` and says so for a moment. */
export function CopyButton({ text, label = 'Copy', testid }: { text: string | (() => string); label?: string; testid?: string }) {
  const [state, setState] = useState<'idle' | 'done' | 'failed'>('idle');
  const onClick = async (event: MouseEvent) => {
    event.stopPropagation();
    const ok = await copyText(typeof text === 'function' ? text() : text);
    setState(ok ? 'done' : 'failed');
    setTimeout(() => setState('idle'), 1200);
  };
  return html`<button type="button" class=${`btn btn-small copy ${state}`} data-testid=${testid} onClick=${onClick}>
    ${state === 'done' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
  </button>`;
}
