import { html } from '../html';

const TOKEN = /("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

/**
 * Pretty JSON with coloured tokens. Every piece is a text node inside a span, so a recorded
 * `<script>` stays characters on the screen.
 */
export function JsonText({ value, text }: { value?: unknown; text?: string }) {
  const source = text ?? JSON.stringify(value, null, 2) ?? String(value);
  const parts: unknown[] = [];
  let last = 0;
  // Colouring is cosmetic: very large bodies are shown plain to keep the page responsive.
  if (source.length <= 200_000) {
    for (const match of source.matchAll(TOKEN)) {
      const index = match.index ?? 0;
      if (index > last) parts.push(source.slice(last, index));
      if (match[1] !== undefined) {
        parts.push(html`<span class=${match[2] ? 'j-key' : 'j-str'}>${match[1]}</span>`);
        if (match[2]) parts.push(match[2]);
      } else if (match[3] !== undefined) parts.push(html`<span class="j-lit">${match[3]}</span>`);
      else parts.push(html`<span class="j-num">${match[4]}</span>`);
      last = index + match[0].length;
    }
  }
  parts.push(source.slice(last));
  return html`<pre class="code json">${parts}</pre>`;
}
