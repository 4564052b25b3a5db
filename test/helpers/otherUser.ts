import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './app';

/**
 * Whether the tests that run an app as the unprivileged `nobody` (a container's non-root user over files root owns)
 * can run here, or why not: they need root, a `nobody` user and `runuser`, and that user must be able to read
 * Probe's own build and the packages it loads. A checkout inside a folder other users cannot enter (a `mktemp -d`
 * folder of 0700, root's home) cannot give them that without changing the folders above it, which is the
 * user's to decide: the tests are skipped, saying which folder stops them.
 */
export function otherUserSkip(): string | false {
  if (process.getuid?.() !== 0) return 'needs root, to run the app as another user';
  try {
    execFileSync('id', ['-u', 'nobody'], { stdio: 'ignore' });
  } catch {
    return 'needs a user named nobody';
  }
  const needed = [path.join(REPO_ROOT, 'dist', 'register.js'), path.join(REPO_ROOT, 'node_modules', '@opentelemetry', 'api', 'package.json')];
  for (const file of needed) {
    try {
      execFileSync('runuser', ['-u', 'nobody', '--', 'test', '-r', file], { stdio: 'ignore' });
    } catch {
      return `user nobody cannot read ${file}: the checkout lies in a folder that user cannot enter (${blockingFolder(file)})`;
    }
  }
  return false;
}

/** The first folder on the way to `file` that `nobody` may not enter. */
function blockingFolder(file: string): string {
  let folder = path.parse(file).root;
  for (const part of path.dirname(file).split(path.sep).filter(Boolean)) {
    folder = path.join(folder, part);
    try {
      execFileSync('runuser', ['-u', 'nobody', '--', 'test', '-x', folder], { stdio: 'ignore' });
    } catch {
      return folder;
    }
  }
  return path.dirname(file);
}
