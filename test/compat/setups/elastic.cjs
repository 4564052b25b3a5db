// elastic-apm-node 4 against the local APM server stand-in (the runner's sink answers its intake).
const agent = require('elastic-apm-node').start({
  serviceName: 'compat',
  serverUrl: process.env.SINK,
  centralConfig: false,
  cloudProvider: 'none',
  metricsInterval: '0s',
  logLevel: 'off',
  apiRequestTime: '100ms',
});
globalThis.__flush = () => new Promise((ok) => agent.flush(() => ok()));
