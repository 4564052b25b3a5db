// Prints the line of an Error made on a call's own line, as the setup's stack mapping gives it: Node's
// (`--enable-source-maps`) for a build, the dev server's own (set by a server plugin the dev test adds) under `nuxi dev`.
type Fix = (name: string, error: Error) => void;

export function oracle(name: string, error: Error): undefined {
  const fix = (globalThis as { __frameOracle?: Fix }).__frameOracle;
  if (fix) fix(name, error);
  else console.log(`ORACLE ${name} ${error.stack!.split('\n')[1]!.trim()}`);
  return undefined;
}
