// Loaded last by bench/startup.mjs (after the preload under test): at exit, prints one JSON line on stderr with
// the whole process's CPU time (every thread, since the process began) and how many CommonJS files it loaded.
// The parent reads it, so a start-up's CPU is measured the same way for every variant, whatever else it runs.
'use strict';
process.on('exit', () => {
  const cpu = process.cpuUsage();
  const files = Object.keys(require.cache).length - 1; // not this file
  process.stderr.write(`\n${JSON.stringify({ benchExit: { cpuUs: cpu.user + cpu.system, files } })}\n`);
});
