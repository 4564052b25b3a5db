// The floor's thread (bench/floor-preload.cjs): per request record, what keeping it costs at the least, as Probe's
// store thread must do it for issue 28's "what must hold" (bench/lib/floor-record.cjs): each kept body decoded and
// read by one masking pass, one JSON serialisation, one file per request, 200 kept. Counts its work in `stats`
// (shared with the app's thread, for the benchmark's proof): records done, files written, bytes, files removed, faults.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { keptRecord, FloorFiles } = require('./lib/floor-record.cjs');

const { dir, rename, stats } = workerData;
const files = new FloorFiles(dir, rename);

parentPort.on('message', (batch) => {
  for (const record of batch) {
    try {
      stats[2] += files.write(JSON.stringify(keptRecord(record)));
      stats[1]++;
      stats[3] = files.removed;
    } catch {
      stats[4]++;
    }
    stats[0]++;
  }
});
