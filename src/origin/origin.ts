import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Origin } from '../capture/types';
import { agentLoaded, isAgentInternal } from './agentInternals';
import { isProbeCode } from '../util/ownCode';
import { isWebpackInternal } from './bundleMaps';
import { BUNDLER_RUNTIME, NO_ENTRY, UNTRUSTED, mapPosition } from './mapChain';
import { mayKeep, startVerdict, verdictGeneration } from './keptVerdicts';
import { lazyModule } from '../util/lazyModule';

export { noteEvaluatedScript } from './mapChain';

/** The frame rules (Next's and other bundles' shapes among them) load with the first frame judged. */
const frameRules = lazyModule(() => require('./frames/frameRules') as typeof import('./frames/frameRules'));

/**
 * Frames captured. Each one costs about a microsecond and a half, whether or not it is the app's, so a
 * lens that is called close to the app asks for fewer: fetch's wrapper is two frames from the app's call,
 * while node:http's hook sits a dozen OTel frames under `http.request` and clients such as got or axios
 * add their own.
 */
const STACK_LIMIT = 40;
export const FETCH_STACK_LIMIT = 20;
/**
 * Frames taken with origins off, only while an APM agent is loaded, to tell its own calls: its sender calls
 * node:http itself, a few frames (the agent's own http wrappers, Probe's) under the capture.
 */
const AGENT_STACK_LIMIT = 12;
const CHAIN = 5;
const NODE_MODULES = `${path.sep}node_modules${path.sep}`;
/** Bound on remembered script names (eval'd code can make many). */
const MAX_FILES = 5000;

const asCallSites = (_error: Error, sites: NodeJS.CallSite[]) => sites;

/** Stacks taken on this thread, a plain counter read by tests: a call past its unit's row cap takes none. */
export const stacksTaken = { count: 0 };

let capturing = true;
let recording: (() => boolean) | undefined;

/**
 * `origin.enabled: false` turns stack capture off at the source, not only the resolving (but for a short stack
 * while an APM agent is loaded: see agentInternals). `whileRecording`
 * (set only when sampling is in effect: it costs a context lookup per capture) tells whether the work in
 * progress is recorded at all: a call of a unit left out by sampling takes no stack, wherever it is asked.
 */
export function setStackCapture(enabled: boolean, whileRecording?: () => boolean): void {
  capturing = enabled;
  recording = whileRecording;
}

/** Whether stacks are taken for origins (`origin.enabled`), not only to tell an agent's own calls. */
export function capturingOrigins(): boolean {
  return capturing;
}

/**
 * The raw call sites of the current stack. Structured call sites skip V8's string formatting (the costly
 * part); turning them into file:line happens after the unit of work ends. `below`: frames down to that
 * function's are left out.
 */
export function captureStack(limit = STACK_LIMIT, below: Function = captureStack): NodeJS.CallSite[] | null {
  if (recording !== undefined && !recording()) return null;
  if (!capturing) {
    if (!agentLoaded()) return null;
    limit = Math.min(limit, AGENT_STACK_LIMIT);
  }
  const previousPrepare = Error.prepareStackTrace;
  const previousLimit = Error.stackTraceLimit;
  try {
    Error.prepareStackTrace = asCallSites;
    Error.stackTraceLimit = limit;
    const holder: { stack?: NodeJS.CallSite[] } = {};
    Error.captureStackTrace(holder, below);
    stacksTaken.count++;
    return Array.isArray(holder.stack) ? holder.stack : null;
  } catch {
    return null;
  } finally {
    Error.prepareStackTrace = previousPrepare;
    Error.stackTraceLimit = previousLimit;
  }
}

/** The first app frame (outside node_modules, node internals and Probe) and a short chain, relative to root. */
export function resolveOrigin(sites: NodeJS.CallSite[] | null, root: string): Origin | null {
  const read = readStack(sites, root, true, false);
  return read === AGENTS_OWN ? null : read;
}

/** What readStack says of a call an APM agent made for itself. */
export const AGENTS_OWN = 'agent';

/**
 * A call's stack read once: `AGENTS_OWN` when an agent's own sender (agentInternals) comes before any app frame
 * (innermost first: an app callback the agent called made its call itself), else the origin (null when
 * `withOrigin` is false, or no app frame is there). `byAgent` false: agent frames count as any library's.
 */
export function readStack(sites: NodeJS.CallSite[] | null, root: string, withOrigin = true, byAgent = true): Origin | null | typeof AGENTS_OWN {
  if (!sites) return null;
  let first: AppLine | undefined;
  let chain: string[] | undefined;
  for (const site of sites) {
    const fileName = site.getFileName();
    const name = fileName ?? (site as { getScriptNameOrSourceURL?: () => string }).getScriptNameOrSourceURL?.() ?? null;
    if (!name) continue;
    const info = fileInfo(name);
    if (info === AGENT_FILE) {
      if (byAgent && !first) return AGENTS_OWN;
      continue;
    }
    if (!info || site.isNative()) continue;
    if (!withOrigin) return null;
    const at = verdictAt(site, info, root, !fileName);
    // A frame whose line cannot be trusted ends the chain there: the origin is null rather than a line guessed.
    if (at === UNTRUSTED) break;
    if (!at) continue;
    const link = chainLink(at, site.getFunctionName() ?? (site.isAsync() ? 'async' : ''));
    if (!first || !chain) {
      first = at;
      chain = [link];
    } else chain.push(link);
    if (chain.length >= CHAIN) break;
  }
  return first && chain ? { file: first.file, line: first.line, chain } : null;
}

/** What a script name says about its frames: not the app's (null), or its path. */
interface FileInfo {
  file: string;
  /** The file relative to the app root (one root per process), and that root. */
  shown?: { root: string; file: string };
  /** Whether the info is kept in `files` (then its positions' verdicts are kept on it). */
  kept: boolean;
  /** Line → the verdicts kept for positions on that line (a line holds one call or a few). */
  verdicts?: Map<number, KeptVerdict>;
}

/** An app frame's file as shown, its line, and `file:line` as the chain writes it. */
interface AppLine {
  file: string;
  line: number;
  link: string;
  /** The function name last seen at the position (one, but for code that renames its functions), and its link. */
  fn: string;
  named: string;
}

/** The chain's entry for a frame: `file:line function`. */
function chainLink(at: AppLine, fn: string): string {
  if (!fn) return at.link;
  if (at.fn !== fn) {
    at.fn = fn;
    at.named = `${at.link} ${fn}`;
  }
  return at.named;
}

/** What a frame position stands for: an app line, a library's frame (null), or no line to trust. */
type Verdict = AppLine | null | typeof UNTRUSTED;

interface KeptVerdict {
  column: number;
  /** The evaluated script's hash (see evaluatedHash), undefined for any other script. */
  hash: string | undefined;
  root: string;
  verdict: Verdict;
  next: KeptVerdict | undefined;
}

/** The verdict on a file of an agent's own senders (see agentInternals). */
const AGENT_FILE = 0;

// Script name → verdict. A stack repeats the same few files call after call; the path checks, URL
// conversion and source-map lookup run once per file.
const files = new Map<string, FileInfo | null | typeof AGENT_FILE>();

/**
 * Bound on the frame positions whose verdicts are kept, all files together: past it a new position is read each
 * time (a few microseconds), as every position was before it was kept.
 */
const MAX_VERDICTS = 10_000;
let verdictsKept = 0;
/** The files holding kept verdicts, and the generation they were made in (keptVerdicts.ts). */
let holders: FileInfo[] = [];
let keptIn = verdictGeneration();

function forgetVerdicts(): void {
  for (const info of holders) info.verdicts = undefined;
  holders = [];
  verdictsKept = 0;
  keptIn = verdictGeneration();
}

function fileInfo(name: string): FileInfo | null | typeof AGENT_FILE {
  let info = files.get(name);
  if (info !== undefined) return info;
  info = null;
  let file = name;
  if (file.startsWith('file://')) {
    try {
      file = fileURLToPath(file);
    } catch {
      file = '';
    }
  }
  const kept = files.size < MAX_FILES;
  if (isWebpackInternal(file)) {
    // A module of a webpack dev bundle (eval-source-map), named after its source: node_modules' are not the app's.
    if (!file.includes('/node_modules/')) info = { file, kept, shown: undefined, verdicts: undefined };
  } else if (file && !file.startsWith('node:') && path.isAbsolute(file) && !isProbeCode(file) && !file.includes(NODE_MODULES)) {
    info = { file, kept, shown: undefined, verdicts: undefined };
  } else if (file.includes(NODE_MODULES) && isAgentInternal(file)) {
    info = AGENT_FILE;
  }
  if (kept) files.set(name, info);
  return info;
}

/**
 * The frame's verdict, made once per position (script, line, column, the evaluated script's hash, root) and kept
 * while what it rests on holds (keptVerdicts.ts). `evaluated`: V8 gave the frame no file name, only a script name.
 */
function verdictAt(site: NodeJS.CallSite, info: FileInfo, root: string, evaluated: boolean): Verdict {
  const line = site.getLineNumber() ?? 0;
  const column = site.getColumnNumber() ?? 0;
  const hash = evaluated ? evaluatedHash(site, info.file) : undefined;
  // Asked per frame: an earlier frame's verdict, made just now, may have changed what the kept ones rest on.
  if (keptIn !== verdictGeneration()) forgetVerdicts();
  for (let kept = info.verdicts?.get(line); kept; kept = kept.next) {
    if (kept.column === column && kept.hash === hash && kept.root === root) return kept.verdict;
  }
  const started = startVerdict();
  const verdict = judgeAt(info, line, column, hash, root);
  if (info.kept && verdictsKept < MAX_VERDICTS && mayKeep(started)) {
    if (!info.verdicts) {
      info.verdicts = new Map();
      holders.push(info);
    }
    info.verdicts.set(line, { column, hash, root, verdict, next: info.verdicts.get(line) });
    verdictsKept++;
  }
  return verdict;
}

function judgeAt(info: FileInfo, line: number, column: number, hash: string | undefined, root: string): Verdict {
  // Every source map the script has, followed to the end (mapChain): a webpack eval module's is asked each time
  // (`next dev` reloads it under the same name after an edit), a file's once. Then the frame rules say whether
  // the frame is the app's (frames/frameRules.ts).
  const mapped = mapPosition(info.file, line, column, root, hash === undefined ? undefined : { hash });
  if (mapped === BUNDLER_RUNTIME) return null;
  if (mapped === UNTRUSTED) return UNTRUSTED;
  const translated = mapped !== NO_ENTRY && mapped.maps > 0;
  const at = frameRules().judgeFrame({
    script: info.file,
    file: translated ? mapped.file : info.file,
    line: translated ? mapped.line : line,
    column: translated ? mapped.column : column,
    mapped: translated,
    hasMap: mapped === NO_ENTRY || mapped.maps > 0,
    root,
  });
  if (!at) return null;
  let file: string;
  if (at.file !== info.file) file = shownPath(root, at.file);
  else {
    if (info.shown?.root !== root) info.shown = { root, file: shownPath(root, at.file) };
    file = info.shown.file;
  }
  const link = `${file}:${at.line}`;
  return { file, line: at.line, link, fn: '', named: link };
}

/**
 * When the frame's script is code evaluated from a string under a file's name (`//# sourceURL=`: V8 gives no
 * file name, only that one), not a bundler's eval module (webpack-internal names, found by name in their bundle):
 * V8's hash of that code ('' when V8 gives none), which tells it from another evaluation under the same name.
 */
function evaluatedHash(site: NodeJS.CallSite, file: string): string | undefined {
  if (!path.isAbsolute(file) || !site.isEval()) return undefined;
  const hash = (site as { getScriptHash?: () => string }).getScriptHash?.();
  return typeof hash === 'string' ? hash : '';
}

/** A file as origins show it: relative to the app root. path.relative resolves both paths each time. */
function shownPath(root: string, file: string): string {
  return path.relative(root, file) || path.basename(file);
}
