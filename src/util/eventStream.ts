/**
 * A `text/event-stream` body read as the HTML standard's event-stream parser reads it
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation): lines end in
 * CRLF, LF or CR; `:` starts a comment; one space after the colon is dropped; `data` lines join with `\n`;
 * a blank line ends the event; a block without data dispatches nothing.
 */
export interface RawEvent {
  /** The `event` field, when the block set one (the browser's default type is `message`). */
  event?: string;
  /** The `id` field, when the block set one. */
  id?: string;
  retry?: number;
  data: string;
}

/** One line of the body with its terminator, so a rewrite can keep every other byte as it was. */
interface Line {
  text: string;
  end: string;
}

const LINE = /([^\r\n]*)(\r\n|\r|\n|$)/g;

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (const match of source.matchAll(LINE)) {
    if (match[0] === '' && match.index === source.length) break;
    lines.push({ text: match[1]!, end: match[2]! });
  }
  return lines;
}

function field(line: string): { name: string; value: string } {
  const colon = line.indexOf(':');
  if (colon < 0) return { name: line, value: '' };
  const value = line.slice(colon + 1);
  return { name: line.slice(0, colon), value: value.startsWith(' ') ? value.slice(1) : value };
}

/**
 * The events of a body. `complete` says the body was read to its end: its last block counts even without
 * the closing blank line; a cut body (past `max_body_bytes`) drops its last, unfinished block.
 */
export function parseEventStream(text: string, complete: boolean): RawEvent[] {
  const events: RawEvent[] = [];
  const lines = linesOf(text);
  let block: { data: string[]; event?: string; id?: string; retry?: number } = { data: [] };
  const dispatch = () => {
    if (block.data.length) {
      const event: RawEvent = { data: block.data.join('\n') };
      if (block.event !== undefined && block.event !== '') event.event = block.event;
      if (block.id !== undefined) event.id = block.id;
      if (block.retry !== undefined) event.retry = block.retry;
      events.push(event);
    }
    block = { data: [] };
  };
  lines.forEach((line, index) => {
    const last = index === lines.length - 1;
    // A cut body's last line may itself be cut.
    if (last && !complete && line.end === '') return;
    if (line.text === '') return dispatch();
    if (line.text.startsWith(':')) return;
    const { name, value } = field(line.text);
    if (name === 'data') block.data.push(value);
    else if (name === 'event') block.event = value;
    else if (name === 'id' && !value.includes('\0')) block.id = value;
    else if (name === 'retry' && /^\d+$/.test(value)) block.retry = Number(value);
  });
  if (complete) dispatch();
  return events;
}

/**
 * The body with the JSON `data` of each event masked by `maskValue`; an event whose data changes is
 * rewritten as one `data:` line, every other byte is kept. Data that is not JSON is kept as sent, like
 * any other non-JSON body.
 */
export function maskEventStream(text: string, maskValue: (value: unknown) => unknown): string {
  const lines = linesOf(text);
  const out: string[] = [];
  let dataLines: number[] = [];
  const flush = () => {
    if (!dataLines.length) return;
    const data = dataLines.map((i) => field(lines[i]!.text).value).join('\n');
    const masked = maskedJson(data, maskValue);
    if (masked !== null) {
      const first = dataLines[0]!;
      out[first] = `data: ${masked}${lines[dataLines[dataLines.length - 1]!]!.end}`;
      for (const i of dataLines.slice(1)) out[i] = '';
    }
    dataLines = [];
  };
  lines.forEach((line, index) => {
    out.push(line.text + line.end);
    if (line.text === '') flush();
    else if (!line.text.startsWith(':') && field(line.text).name === 'data') dataLines.push(index);
  });
  flush();
  return out.join('');
}

/** The masked JSON text when `data` is JSON and masking changed it, else null (kept as sent). */
function maskedJson(data: string, maskValue: (value: unknown) => unknown): string | null {
  const first = data.trimStart()[0];
  if (first !== '{' && first !== '[') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return null;
  }
  const masked = JSON.stringify(maskValue(parsed));
  return masked === JSON.stringify(parsed) ? null : masked;
}

/** `data` parsed as JSON when it parses, else the text. */
export function dataValue(data: string): unknown {
  const first = data.trimStart()[0];
  if (
    first === '{' ||
    first === '[' ||
    first === '"' ||
    first === '-' ||
    (first !== undefined && first >= '0' && first <= '9') ||
    data === 'true' ||
    data === 'false' ||
    data === 'null'
  ) {
    try {
      return JSON.parse(data) as unknown;
    } catch {
      return data;
    }
  }
  return data;
}
