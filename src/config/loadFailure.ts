/**
 * What went wrong loading a config file, in one phrase naming no stack: a syntax error with its line, a top-level
 * await, or the error's own message. Used where the file is tried (configTrial.ts) and where it is loaded.
 */
export function loadFailure(file: string, error: unknown): string {
  if (error instanceof SyntaxError) {
    const line = syntaxErrorLine(file, error);
    return `syntax error${line ? ` on line ${line}` : ''}: ${error.message}`;
  }
  const code = (error as NodeJS.ErrnoException)?.code;
  const why = code === 'ERR_REQUIRE_ASYNC_MODULE' ? 'uses top-level await, which a preload cannot wait for' : messageOf(error);
  return `could not be loaded: ${why}`;
}

/** An error's message on one line (a thrown non-Error as its text). */
export function messageOf(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? error.message : String(error);
  } catch {
    text = 'an unprintable value was thrown';
  }
  return text.replace(/\s*\n\s*/g, ' ');
}

/**
 * The line of a syntax error in a config file. CommonJS puts `file:line` atop the stack; an ES module loaded
 * through require(esm) does not (Node 20), so the file is checked once more with `node --check`, which
 * does. Only on this error path.
 */
function syntaxErrorLine(file: string, error: SyntaxError): number | null {
  const fromStack = new RegExp(`^${escapeRegExp(file)}:(\\d+)`).exec(error.stack ?? '');
  if (fromStack) return Number(fromStack[1]);
  try {
    const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
    const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' }, timeout: 10_000 });
    const match = /:(\d+)\s*$/m.exec(String(check.stderr).split('\n')[0] ?? '');
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
