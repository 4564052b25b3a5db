// `request` starts each request on a later tick (its constructor defers `start()` with process.nextTick), so no
// app frame is on the stack when it calls node:http. It is in no list of Probe's: the first call's origin is
// null and teaches Probe the package; the next ones have the app's line. Each call's line also makes an Error:
// the oracle is the line Node prints for it.
const request = require('request');
const API = process.env.API_URL;
const oracle = (name, error) => console.log(`ORACLE ${name} ${error.stack.split('\n')[1].trim()}`);

async function main() {
  await new Promise((resolve) => request(`${API}/users/request-first`, resolve));
  await new Promise((resolve) => (oracle('second', new Error()), request(`${API}/users/request-second`, resolve)));
  await new Promise((resolve) => (oracle('third', new Error()), request.post(`${API}/users/request-third`, { json: { a: 1 } }, resolve)));
}
main();
