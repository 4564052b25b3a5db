// New Relic's ECS lookup (GET $ECS_CONTAINER_METADATA_URI_V4, here the runner's sink on loopback) runs only when
// AWS detection is on (lib/utilization/ecs-info.js: "we rely on the `detect_aws` setting"), and AWS's own lookup
// would leave the machine (PUT http://169.254.169.254/latest/api/token). Its module is stood in for by one that
// finds no AWS, before the agent loads: https://github.com/newrelic/node-newrelic/blob/main/lib/utilization/aws-info.js
const Module = require('node:module');
const file = require.resolve('newrelic/lib/utilization/aws-info');
// Loaded after the agent, the stand-in would be too late and AWS's lookup would go out: fail the run instead.
if (require.cache[file] && !require.cache[file].exports.standIn) throw new Error('newrelic-aws-off.cjs must be loaded before newrelic');
const stand = new Module(file, module);
stand.filename = file;
stand.loaded = true;
stand.exports = Object.assign(function fetchAWSInfo(_agent, callback) {
  setImmediate(callback, null);
}, { clearCache() {}, standIn: true });
require.cache[file] = stand;
