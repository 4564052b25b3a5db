// elastic-apm-node 4 against the local APM server stand-in (the runner's sink answers its intake).
// Under ESM the agent's documented flags start it first (`--experimental-loader=elastic-apm-node/loader.mjs
// -r elastic-apm-node/start.js`, configured by the same settings as ELASTIC_APM_*): this file then only adds the flush.
const apm = require('elastic-apm-node');
const agent = apm.isStarted()
  ? apm
  : apm.start({
      serviceName: 'compat',
      serverUrl: process.env.SINK,
      centralConfig: false,
      cloudProvider: 'none',
      metricsInterval: '0s',
      logLevel: 'off',
      apiRequestTime: '100ms',
    });
globalThis.__flush = () => new Promise((ok) => agent.flush(() => ok()));
