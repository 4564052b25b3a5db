import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Origin } from '../capture/types';
import { agentLoaded, isAgentInternal } from './agentInternals';
import { isProbeCode } from '../util/ownCode';
import { isWebpackInternal } from './bundleMaps';
import { BUNDLER_RUNTIME, NO_ENTRY, UNTRUSTED, mapPosition, type EvaluatedScript } from './mapChain';
import { judgeFrame } from './frames/frameRules';

export { noteEvaluatedScript } from './mapChain';

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

interface Frame {
  file: string;
  line: number;
  fn: string;
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
  const frames: Frame[] = [];
  for (const site of sites) {
    const name = site.getFileName() ?? (site as { getScriptNameOrSourceURL?: () => string }).getScriptNameOrSourceURL?.() ?? null;
    if (!name) continue;
    const info = fileInfo(name);
    if (info === AGENT_FILE) {
      if (byAgent && frames.length === 0) return AGENTS_OWN;
      continue;
    }
    if (!info || site.isNative()) continue;
    if (!withOrigin) return null;
    const frame = appFrame(site, info, root);
    // A frame whose line cannot be trusted ends the chain there: the origin is null rather than a line guessed.
    if (frame === UNTRUSTED) break;
    if (frame) frames.push(frame);
    if (frames.length >= CHAIN) break;
  }
  const first = frames[0];
  if (!first) return null;
  return { file: first.file, line: first.line, chain: frames.map((f) => `${f.file}:${f.line}${f.fn ? ` ${f.fn}` : ''}`) };
}

/** What a script name says about its frames: not the app's (null), or its path. */
interface FileInfo {
  file: string;
  /** The file relative to the app root (one root per process), and that root. */
  shown?: { root: string; file: string };
}

/** The verdict on a file of an agent's own senders (see agentInternals). */
const AGENT_FILE = 0;

// Script name → verdict. A stack repeats the same few files call after call; the path checks, URL
// conversion and source-map lookup run once per file.
const files = new Map<string, FileInfo | null | typeof AGENT_FILE>();

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
  if (isWebpackInternal(file)) {
    // A module of a webpack dev bundle (eval-source-map), named after its source: node_modules' are not the app's.
    if (!file.includes('/node_modules/')) info = { file };
  } else if (file && !file.startsWith('node:') && path.isAbsolute(file) && !isProbeCode(file) && !file.includes(NODE_MODULES)) {
    info = { file };
  } else if (file.includes(NODE_MODULES) && isAgentInternal(file)) {
    info = AGENT_FILE;
  }
  if (files.size < MAX_FILES) files.set(name, info);
  return info;
}

function appFrame(site: NodeJS.CallSite, info: FileInfo, root: string): Frame | null | typeof UNTRUSTED {
  const line = site.getLineNumber() ?? 0;
  const column = site.getColumnNumber() ?? 0;
  // Every source map the script has, followed to the end (mapChain): a webpack eval module's is asked each time
  // (`next dev` reloads it under the same name after an edit), a file's once. Then the frame rules say whether
  // the frame is the app's (frames/frameRules.ts).
  const mapped = mapPosition(info.file, line, column, root, evaluatedScript(site, info.file));
  if (mapped === BUNDLER_RUNTIME) return null;
  if (mapped === UNTRUSTED) return UNTRUSTED;
  const translated = mapped !== NO_ENTRY && mapped.maps > 0;
  const at = judgeFrame({
    script: info.file,
    file: translated ? mapped.file : info.file,
    line: translated ? mapped.line : line,
    column: translated ? mapped.column : column,
    mapped: translated,
    hasMap: mapped === NO_ENTRY || mapped.maps > 0,
    root,
  });
  if (!at) return null;
  const fn = site.getFunctionName() ?? (site.isAsync() ? 'async' : '');
  if (at.file !== info.file) return { file: shownPath(root, at.file), line: at.line, fn };
  if (info.shown?.root !== root) info.shown = { root, file: shownPath(root, at.file) };
  return { file: info.shown.file, line: at.line, fn };
}

/**
 * The frame's script when it is code evaluated from a string under a file's name (`//# sourceURL=`: V8 gives no
 * file name, only that one), not a bundler's eval module (webpack-internal names, found by name in their bundle).
 */
function evaluatedScript(site: NodeJS.CallSite, file: string): EvaluatedScript | undefined {
  if (!path.isAbsolute(file) || site.getFileName() || !site.isEval()) return undefined;
  const hash = (site as { getScriptHash?: () => string }).getScriptHash?.();
  return { hash: typeof hash === 'string' ? hash : '' };
}

/** A file as origins show it: relative to the app root. path.relative resolves both paths each time. */
function shownPath(root: string, file: string): string {
  return path.relative(root, file) || path.basename(file);
}
