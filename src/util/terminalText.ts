/**
 * Text for a terminal: control characters written as escapes, so recorded text (a capture name, a URL, a
 * header) cannot clear the screen, move the cursor, set the title, print a disguised OSC 8 link, ring the
 * bell or overwrite a line with `\r`. C0 controls are written `\x1b`; DEL, C1 controls (`\u009b` is a
 * one-character CSI), line and paragraph separators, bidirectional marks (U+061C, U+200E, U+200F), embeddings,
 * overrides and isolates, and the byte order mark are written `\u009b`.
 *
 * Applied to JSON text it keeps the JSON exact: JSON.stringify never writes a raw C0 control, and the other
 * characters only occur inside strings, where `\uXXXX` stands for the same character.
 *
 * `keep` lists the C0 characters left as they are (the CLI keeps `\n` between its own lines).
 */
export function terminalText(text: string, keep = ''): string {
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE_ALL, (char) => {
    if (keep.includes(char)) return char;
    const code = char.charCodeAt(0);
    return code < 0x20 ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
  });
}

/**
 * Lines Probe made, as one text: each line escaped whole (its CR, LF, U+0085, U+2028 and U+2029 included), then
 * joined with `\n`. A line break inside a recorded or read value (a name sent to the collector, a hand-edited
 * baseline) then cannot start a line of its own, whichever value a renderer forgot to escape.
 */
export function terminalLines(lines: readonly string[]): string {
  return lines.map((line) => terminalText(line)).join('\n');
}

const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g');

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}
