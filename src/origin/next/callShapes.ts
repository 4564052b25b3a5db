/**
 * The shape of a call that survives minification: its callee's name (a global such as `fetch`, or a member name
 * such as `get`) and the text inside its parentheses that a minifier keeps — string literals and template parts,
 * member names after `.`, object keys. Local identifiers are renamed (`UPSTREAM` → `n`, `request` → `e`) and
 * webpack mangles export names (`n.s`), so bare identifiers and names of one or two characters do not count.
 *
 * This lets a frame in a bundle without a source map (Next.js's `next build` by default) be matched to the one
 * line of the app's source that holds the same call. Everything here is pure and linear in the text read: one
 * pass of a small JavaScript/TypeScript scanner, no backtracking regular expressions over the app's code.
 */

type Kind = 'id' | 'str' | 'punct' | 'other';

interface Token {
  kind: Kind;
  text: string;
  /** Offset of the token's first character in the text. */
  start: number;
  /** 1-based line of the token's first character. */
  line: number;
}

/** A call as a source file writes it: the line of its callee and its shape. */
export interface SourceCall {
  line: number;
  key: string;
  /** The surviving tokens after the call's closing parenthesis (see CONTEXT). */
  after: string;
  /**
   * For a call through a plain name (an imported or local function: `got(url)`, `getUser(id)`), which a bundle
   * renames or reaches through a mangled export (`(0,v.w)(c)`): its shape without the callee (see RENAMED).
   */
  renamed?: string;
}

/** A call as a bundle holds it at a frame's position. */
export interface BundleCall {
  key: string;
  after: string;
  /** The shape's surviving tokens (callee excluded): few of them call for the context to agree too. */
  size: number;
  /** When the bundle's callee is no source name (renamed, mangled, `(0,o.default)`): the shape without it. */
  renamed: string | null;
  /** The call's string literals as the bundle writes them (to tell that no other call of the bundle holds them). */
  strings: string[];
}

/** Tokens scanned past a call for its context, and how many surviving ones the context holds. */
const CONTEXT_SCAN = 80;
const CONTEXT = 2;
/** A call's parentheses longer than this (in tokens) are not a call worth matching. */
const MAX_CALL_TOKENS = 400;
/** A callee written more often than this in one bundle is too common to tell its calls apart cheaply. */
const MAX_TWINS_READ = 2000;
/** Shapes with fewer surviving tokens than this also compare what follows the call. */
const FEW = 2;

const KEYWORDS = new Set([
  'if',
  'for',
  'while',
  'switch',
  'catch',
  'function',
  'return',
  'typeof',
  'await',
  'new',
  'delete',
  'void',
  'in',
  'of',
  'instanceof',
  'do',
  'else',
  'case',
  'yield',
  'throw',
  'super',
  'import',
  'class',
  'with',
]);

const isIdStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 36 || c === 95 || c > 127;
const isIdPart = (c: number) => isIdStart(c) || (c >= 48 && c <= 57);
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Tokens of JavaScript or TypeScript text from `from`, at most `max` of them. Comments are skipped; strings and the
 * literal parts of template literals are `str` tokens with their quotes removed (escaped quotes unescaped), the
 * expressions inside `${}` are scanned as code; a regular expression literal is one `other` token. A quote
 * string ends at a line end at the latest, so a stray quote (JSX text such as `don't`) spoils one line only.
 * Lines are counted from `from` as line 1.
 */
export function tokenize(text: string, from = 0, max = Number.POSITIVE_INFINITY): Token[] {
  const tokens: Token[] = [];
  /** Brace depths at which an open template literal resumes (its `${` … `}`). */
  const templates: number[] = [];
  let braces = 0;
  // Lines count from `from` (a bundle's call is read for its shape, not its line).
  let line = 1;
  let i = from;
  const n = text.length;
  const push = (kind: Kind, value: string, start: number, at: number) => tokens.push({ kind, text: value, start, line: at });

  /** Scans a template literal's text from `i` (after the backtick or a closing `}`) to its end or next `${`. */
  const template = (): void => {
    const start = i;
    const at = line;
    let value = '';
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 92) {
        value += text[i + 1] ?? '';
        if (text.charCodeAt(i + 1) === 10) line++;
        i += 2;
      } else if (c === 96) {
        i++;
        push('str', value, start, at);
        return;
      } else if (c === 36 && text.charCodeAt(i + 1) === 123) {
        i += 2;
        push('str', value, start, at);
        templates.push(++braces);
        return;
      } else {
        if (c === 10) line++;
        value += text[i];
        i++;
      }
    }
    push('str', value, start, at);
  };

  while (i < n && tokens.length < max) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      line++;
      i++;
    } else if (c === 32 || c === 9 || c === 13 || c === 0xfeff) {
      i++;
    } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? n : end;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      for (let k = i; k < stop; k++) if (text.charCodeAt(k) === 10) line++;
      i = stop;
    } else if (isIdStart(c)) {
      const start = i;
      while (i < n && isIdPart(text.charCodeAt(i))) i++;
      push('id', text.slice(start, i), start, line);
    } else if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)))) {
      const start = i;
      while (i < n && (isIdPart(text.charCodeAt(i)) || text.charCodeAt(i) === 46)) i++;
      push('other', text.slice(start, i), start, line);
    } else if (c === 34 || c === 39) {
      const start = i;
      let value = '';
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === c) {
          i++;
          break;
        }
        if (d === 10) break;
        if (d === 92) {
          value += text[i + 1] ?? '';
          i += 2;
        } else {
          value += text[i];
          i++;
        }
      }
      push('str', value, start, line);
    } else if (c === 96) {
      i++;
      template();
    } else if (c === 47 && regexAllowed(tokens[tokens.length - 1])) {
      const start = i;
      let inClass = false;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 10) break;
        if (d === 92) i += 2;
        else {
          i++;
          if (d === 91) inClass = true;
          else if (d === 93) inClass = false;
          else if (d === 47 && !inClass) break;
        }
      }
      while (i < n && isIdPart(text.charCodeAt(i))) i++;
      push('other', text.slice(start, i), start, line);
    } else {
      const start = i;
      let value = text[i]!;
      i++;
      if (c === 63 && text.charCodeAt(i) === 46 && !isDigit(text.charCodeAt(i + 1))) {
        value = '?.';
        i++;
      } else if (c === 123) {
        braces++;
      } else if (c === 125) {
        if (templates.length > 0 && templates[templates.length - 1] === braces) {
          templates.pop();
          braces--;
          template();
          continue;
        }
        braces--;
      }
      push('punct', value, start, line);
    }
  }
  return tokens;
}

/** Whether a `/` after this token starts a regular expression (not a division). */
function regexAllowed(previous: Token | undefined): boolean {
  if (!previous) return true;
  if (previous.kind === 'punct') return previous.text !== ')' && previous.text !== ']' && previous.text !== '}';
  if (previous.kind === 'id') return KEYWORDS.has(previous.text);
  return false;
}

/** A name that survives minification: three characters or more (shorter ones may be renamed or mangled). */
const survives = (name: string) => name.length > 2;

/**
 * What of the token at `index` survives minification, or null: a string's text, a member name after `.`/`?.`,
 * an object key (`key:` or shorthand `{ key }` right inside braces).
 */
function survivor(tokens: Token[], index: number, brackets: string[]): string | null {
  const token = tokens[index]!;
  if (token.kind === 'str') return token.text === '' ? null : `"${token.text}`;
  if (token.kind !== 'id' || !survives(token.text)) return null;
  const before = tokens[index - 1]?.text;
  if (before === '.' || before === '?.') return token.text;
  if (brackets[brackets.length - 1] !== '{' || (before !== '{' && before !== ',')) return null;
  const after = tokens[index + 1]?.text;
  return after === ':' || after === ',' || after === '}' ? token.text : null;
}

const OPEN = new Set(['(', '[', '{']);
const CLOSE = new Set([')', ']', '}']);

/**
 * The call whose open parenthesis is at `open` (a token index): its surviving tokens in order, and the index of
 * the token after its closing parenthesis; null when it does not close within MAX_CALL_TOKENS.
 */
function callArguments(tokens: Token[], open: number): { survivors: string[]; next: number } | null {
  const brackets: string[] = [];
  const survivors: string[] = [];
  const last = Math.min(tokens.length, open + MAX_CALL_TOKENS);
  for (let index = open; index < last; index++) {
    const token = tokens[index]!;
    if (token.kind === 'punct' && OPEN.has(token.text)) brackets.push(token.text);
    else if (token.kind === 'punct' && CLOSE.has(token.text)) {
      brackets.pop();
      if (brackets.length === 0) return { survivors, next: index + 1 };
    } else {
      const kept = survivor(tokens, index, brackets);
      if (kept !== null) survivors.push(kept);
    }
  }
  return null;
}

/** Up to CONTEXT surviving tokens from `from` on (brackets tracked from there: keys are told by their braces). */
function contextAfter(tokens: Token[], from: number): string {
  const brackets: string[] = [];
  const found: string[] = [];
  const last = Math.min(tokens.length, from + CONTEXT_SCAN);
  for (let index = from; index < last && found.length < CONTEXT; index++) {
    const token = tokens[index]!;
    if (token.kind === 'punct' && OPEN.has(token.text)) brackets.push(token.text);
    else if (token.kind === 'punct' && CLOSE.has(token.text)) brackets.pop();
    else {
      const kept = survivor(tokens, index, brackets.length > 0 ? brackets : ['{']);
      if (kept !== null) found.push(kept);
    }
  }
  return found.join('\u0000');
}

/** The callee a renamed call's key names instead of its own. */
const RENAMED = '?';

/** The shape's key: the callee and its surviving tokens as a set (a minifier may reorder nothing, but may dedupe nothing either: a set is the safe side). */
function shapeKey(callee: string, survivors: string[]): string {
  return `${callee}(${[...new Set(survivors)].sort().join('\u0000')})`;
}

/** After a callee token at `index`: TypeScript type arguments (`get<Item>(`) skipped; the `(` token's index or -1. */
function openParenAfter(tokens: Token[], index: number): number {
  let next = index + 1;
  if (tokens[next]?.text === '<') {
    let depth = 0;
    for (let k = next; k < Math.min(tokens.length, next + 40); k++) {
      const text = tokens[k]!.text;
      if (text === '<') depth++;
      else if (text === '>') depth--;
      else if (text === ';' || text === '{' || text === '}') return -1;
      if (depth === 0) {
        next = k + 1;
        break;
      }
    }
    if (depth !== 0) return -1;
  }
  return tokens[next]?.kind === 'punct' && tokens[next]!.text === '(' ? next : -1;
}

/** What a source file says for matching: its calls with a surviving callee name, and the modules it imports. */
export interface SourceShapes {
  calls: SourceCall[];
  /** Specifiers of `import … from`, `export … from`, `import()`, `require()` and side-effect imports. */
  imports: string[];
}

/** A source file's calls (locals are renamed in a bundle: their calls cannot be told) and imports. */
export function sourceShapes(text: string): SourceShapes {
  const tokens = tokenize(text);
  const calls: SourceCall[] = [];
  const imports: string[] = [];
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index]!;
    if (token.kind !== 'id') continue;
    const specifier = importedAt(tokens, index);
    if (specifier !== null) imports.push(specifier);
    if (KEYWORDS.has(token.text) || tokens[index - 1]?.text === 'function') continue;
    const open = openParenAfter(tokens, index);
    if (open < 0) continue;
    // A method's declaration (`async get(url) {`) is not a call.
    const args = callArguments(tokens, open);
    if (!args || tokens[args.next]?.text === '{') continue;
    const before = tokens[index - 1]?.text;
    const call: SourceCall = { line: token.line, key: shapeKey(token.text, args.survivors), after: contextAfter(tokens, args.next) };
    if (before !== '.' && before !== '?.') call.renamed = shapeKey(RENAMED, args.survivors);
    calls.push(call);
  }
  return { calls, imports };
}

/** The specifier imported at an `import`, `from` or `require` token, or null. */
function importedAt(tokens: Token[], index: number): string | null {
  const word = tokens[index]!.text;
  if (word !== 'import' && word !== 'from' && word !== 'require') return null;
  let next = tokens[index + 1];
  if (next?.text === '(' && word !== 'from') next = tokens[index + 2];
  else if (word === 'require') return null;
  if (word === 'from' && tokens[index - 1]?.text === '.') return null;
  return next?.kind === 'str' ? next.text : null;
}

/**
 * The call a bundle makes at `offset` (a stack frame's position: V8 points at the callee's name, `fetch` of
 * `fetch(…)`, `get` of `a.get(…)`, inside `(0,a.get)(…)`), or null when no call starts there.
 */
export function bundleCallAt(text: string, offset: number): BundleCall | null {
  let start = offset;
  if (start < 0 || start >= text.length || !isIdPart(text.charCodeAt(start))) return null;
  while (start > 0 && isIdPart(text.charCodeAt(start - 1))) start--;
  if (!isIdStart(text.charCodeAt(start))) return null;
  const tokens = tokenize(text, start, MAX_CALL_TOKENS + CONTEXT_SCAN + 4);
  const callee = tokens[0];
  if (!callee || callee.kind !== 'id' || KEYWORDS.has(callee.text)) return null;
  let open = 1;
  if (tokens[open]?.text === ')') open++;
  if (tokens[open]?.text !== '(') return null;
  const args = callArguments(tokens, open);
  if (!args) return null;
  const size = new Set(args.survivors).size;
  const renamed = !survives(callee.text) || callee.text === 'default' ? shapeKey(RENAMED, args.survivors) : null;
  const strings: string[] = [];
  for (let index = open; index < args.next; index++) {
    const token = tokens[index]!;
    if (token.kind === 'str') strings.push(token.text);
  }
  return { key: shapeKey(callee.text, args.survivors), after: contextAfter(tokens, args.next), size, renamed, strings };
}

/** Whether a source call is the bundle's call: the same shape, and when the shape says little, the same context. */
export function sameCall(bundle: BundleCall, source: SourceCall): boolean {
  return bundle.key === source.key && (bundle.size >= FEW || bundle.after === source.after);
}

/**
 * The offsets in a bundle where a call of this callee may start (`name(` or `name)(`), found with indexOf: the
 * bundle's other calls of the same shape make a match ambiguous (a library's call bundled beside the app's).
 */
export function calleeOffsets(text: string, callee: string): number[] {
  const offsets: number[] = [];
  for (let at = text.indexOf(callee); at >= 0; at = text.indexOf(callee, at + callee.length)) {
    if (at > 0 && isIdPart(text.charCodeAt(at - 1))) continue;
    const after = text.charCodeAt(at + callee.length);
    if (after === 40 || (after === 41 && text.charCodeAt(at + callee.length + 1) === 40)) offsets.push(at);
  }
  return offsets;
}

/** The callee of a shape key. */
export function calleeOf(key: string): string {
  return key.slice(0, key.indexOf('('));
}

/**
 * The one line among `candidates` (calls of the app's source files) that holds the bundle's call at `offset`,
 * or null: no call there, no source call of that shape, more than one, or the bundle holding other calls of the
 * same shape (never a guessed line).
 */
export function matchCall(
  bundleText: string,
  offset: number,
  candidates: readonly { file: string; calls: SourceCall[] }[],
): { file: string; line: number } | null {
  const call = bundleCallAt(bundleText, offset);
  if (!call) return null;
  let found: { file: string; line: number } | null = null;
  for (const { file, calls } of candidates) {
    for (const source of calls) {
      if (!sameCall(call, source)) continue;
      if (found) return null;
      found = { file, line: source.line };
    }
  }
  if (!found) return renamedMatch(bundleText, call, candidates);
  let twins = 0;
  const offsets = calleeOffsets(bundleText, calleeOf(call.key));
  if (offsets.length > MAX_TWINS_READ) return null;
  for (const at of offsets) {
    const other = bundleCallAt(bundleText, at);
    if (other && other.key === call.key && (call.size >= FEW || other.after === call.after) && ++twins > 1) return null;
  }
  return found;
}

/** A string of a renamed call that tells it apart in its bundle: at least this long, and there only once. */
const MIN_TELLING = 3;

/**
 * A bundle call whose callee the bundle renamed (`(0,o.default)(…)` for `got(…)`, `(0,v.w)(…)` for an imported
 * function) matched to the one source call through a plain name with the same arguments' shape: only when the
 * arguments keep at least FEW tokens, and one of its strings is written once in the whole bundle (so no other
 * call of the bundle, a library's, can have that shape). Else null.
 */
function renamedMatch(
  bundleText: string,
  call: BundleCall,
  candidates: readonly { file: string; calls: SourceCall[] }[],
): { file: string; line: number } | null {
  if (call.renamed === null || call.size < FEW) return null;
  const once = (text: string) => {
    const at = bundleText.indexOf(text);
    return at >= 0 && bundleText.indexOf(text, at + 1) < 0;
  };
  if (!call.strings.some((text) => text.length >= MIN_TELLING && once(text))) return null;
  let found: { file: string; line: number } | null = null;
  for (const { file, calls } of candidates) {
    for (const source of calls) {
      if (source.renamed !== call.renamed) continue;
      if (found) return null;
      found = { file, line: source.line };
    }
  }
  return found;
}
