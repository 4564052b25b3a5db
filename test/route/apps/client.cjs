// Asks the app for a nested route and for a path no route matches, prints the answers, and lets the app close.
const http = require('node:http');

function get(port, path) {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ path, status: res.statusCode, body }));
      })
      .on('error', reject);
  });
}

exports.PATHS = ['/api/users/42', '/nope'];

exports.exercise = async function exercise(port) {
  const answers = [];
  for (const path of exports.PATHS) answers.push(await get(port, path));
  process.stdout.write(`${JSON.stringify(answers)}\n`);
};
