import type { SourceFactory } from './UnitSource';

/**
 * Node publishes every ChildProcess it creates (spawn, exec, execFile, fork) on 'child_process'
 * (nodejs/node#44045): a process that started one and made no call is a launcher (npm, npx, tsx), whose own
 * command capture is not kept (see Recorder.closeAll).
 */
export const launcherWatch: SourceFactory = ({ recorder, subscribe }) => ({
  name: 'child processes',
  instrumentations: [],
  enable: () =>
    subscribe('child_process', () => {
      recorder.startedChild = true;
    }),
});
