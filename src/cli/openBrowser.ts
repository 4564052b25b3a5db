import { spawn } from 'node:child_process';

/** The program that opens a URL in the default browser on each platform (`start` is a cmd.exe built-in). */
function opener(url: string, platform: NodeJS.Platform): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]];
  return ['xdg-open', [url]];
}

/**
 * Asks the desktop to open `url` in the default browser. Resolves true once the opener started, false when
 * there is none (no xdg-open on a server, in a container): then the caller prints the URL. The opener runs
 * detached and is not waited for; its output and its exit status are ignored (xdg-open without a display says
 * so on stderr, which would only add noise beside the URL already printed).
 */
export function openBrowser(url: string, platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  // Linux and the BSDs without a display (a server, a container, an SSH session): xdg-open exists but has
  // nowhere to open a browser, and would only print its own error.
  if (platform !== 'darwin' && platform !== 'win32' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return Promise.resolve(false);
  const [command, args] = opener(url, platform);
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
