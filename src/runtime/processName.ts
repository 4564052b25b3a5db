import path from 'node:path';

/**
 * The name of the process's own command capture: the script and its arguments as typed, relative to the app root
 * (`node scripts/sync.js --all` → `scripts/sync.js --all`). A worker of a process manager is named by the app's
 * script and which worker it is, so the workers' captures can be told apart:
 * - PM2 (its workers run PM2's ProcessContainer.js with the daemon's arguments): the app's script and the
 *   instance, `app.js [pm2 instance 1]`;
 * - a `node:cluster` worker (its `cluster.worker.id`; Node reads and deletes `NODE_UNIQUE_ID` before any preload):
 *   `cluster.js [worker 2]`.
 */
export function processName(
  root: string,
  argv: readonly string[] = process.argv,
  env: NodeJS.ProcessEnv = process.env,
  worker: number | undefined = clusterWorker(),
  execArgv: readonly string[] = process.execArgv,
): string {
  const pm2 = pm2Process(env);
  if (pm2) return pm2.instance !== undefined ? `${shownPath(root, pm2.script)} [pm2 instance ${pm2.instance}]` : shownPath(root, pm2.script);
  const name = commandLine(root, argv, execArgv);
  return worker !== undefined ? `${name} [worker ${worker}]` : name;
}

/**
 * The `node:cluster` worker this process is, if any. Node loads node:cluster in a worker before any preload runs,
 * so where it is not loaded yet the process is no worker, and the preload does not load it for nothing.
 */
function clusterWorker(): number | undefined {
  const loaded = (process as { moduleLoadList?: string[] }).moduleLoadList;
  if (loaded && !loaded.includes('NativeModule cluster')) return undefined;
  const cluster = require('node:cluster') as typeof import('node:cluster').default;
  return cluster.isWorker ? cluster.worker?.id : undefined;
}

/**
 * PM2's description of this process: in the environment itself (fork mode), or as the JSON in `pm2_env` that its
 * cluster workers get and its ProcessContainer.js spreads into the environment only after the preloads ran
 * (https://github.com/Unitech/pm2/blob/master/lib/God/ClusterMode.js). The instance is in the variable named by
 * `instance_var` (`NODE_APP_INSTANCE` by default), else PM2's process id.
 */
function pm2Process(env: NodeJS.ProcessEnv): { script: string; instance: string | undefined } | null {
  let fields: Record<string, unknown> = env;
  if (!env.pm_exec_path && env.pm2_env) {
    try {
      const parsed: unknown = JSON.parse(env.pm2_env);
      if (parsed && typeof parsed === 'object') fields = parsed as Record<string, unknown>;
    } catch {
      return null;
    }
  }
  const script = fields.pm_exec_path;
  if (typeof script !== 'string' || !script) return null;
  const name = typeof fields.instance_var === 'string' && fields.instance_var ? fields.instance_var : 'NODE_APP_INSTANCE';
  const instance = [fields[name], fields.pm_id].find((value) => (typeof value === 'string' && value !== '') || typeof value === 'number');
  return { script, instance: instance === undefined ? undefined : String(instance) };
}

function commandLine(root: string, argv: readonly string[], execArgv: readonly string[]): string {
  const script = argv[1];
  const args = argv.slice(2);
  if (!script) return ['node', ...execArgv.filter((a) => !a.startsWith('--require') && !a.startsWith('--import'))].join(' ') || 'node';
  return [shownPath(root, script), ...args].join(' ');
}

function shownPath(root: string, file: string): string {
  const relative = path.relative(root, file);
  return relative && !relative.startsWith('..') ? relative : file;
}
