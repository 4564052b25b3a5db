import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { frameAppCopy } from '../frames/install';
import { serve, writeFiles } from './served';

/**
 * A page's route is the route the app's vue-router resolved for the request, read off the app Vue's server renderer
 * is handed: the rule holds for any Vue app rendered on the server, not Nuxt's only. Here a plain node:http server
 * renders a Vue app with vue-router per request (Vue and vue-router as the Nuxt fixture installs them): the deepest
 * matched record's path names the request (a nested route's full path), and a URL no route matches has none.
 */
const SERVER = `import http from 'node:http';
import { createSSRApp, h } from 'vue';
import { createMemoryHistory, createRouter, RouterView } from 'vue-router';
import { renderToString } from 'vue/server-renderer';

const Page = (text) => ({ render: () => h('p', text) });
const routes = [
  { path: '/', component: Page('home') },
  { path: '/items/:id', component: Page('item') },
  { path: '/shop', component: { render: () => h(RouterView) }, children: [{ path: 'cart', component: Page('cart') }] },
];

const server = http.createServer(async (req, res) => {
  const app = createSSRApp({ render: () => h(RouterView) });
  const router = createRouter({ history: createMemoryHistory(), routes });
  app.use(router);
  await router.push(req.url);
  await router.isReady();
  const html = await renderToString(app);
  res.writeHead(router.currentRoute.value.matched.length > 0 ? 200 : 404, { 'content-type': 'text/html' });
  res.end(html);
});
server.listen(0, '127.0.0.1', () => console.log('Listening on http://127.0.0.1:' + server.address().port));
`;

describe("Vue SSR with vue-router (no framework): each request's route is the one its router resolved", { timeout: 600_000 }, () => {
  it('a static, a parameter and a nested route named as the app wrote them, a 404 none; the same answers with and without Probe', async () => {
    const app = await frameAppCopy('nuxt', 'vue-ssr');
    writeFiles(app, { 'vue-server.mjs': SERVER });
    const paths = ['/', '/items/42', '/shop/cart', '/nope'];
    const run = (preload: boolean) => serve(app, ['vue-server.mjs'], { preload, ready: /Listening on (http:\/\/\S+)/, paths });
    const alone = await run(false);
    assert.deepEqual(
      alone.answers.map((answer) => answer.status),
      [200, 200, 200, 404],
      alone.output,
    );
    const withProbe = await run(true);
    assert.deepEqual(withProbe.answers, alone.answers, 'the app answers as without Probe');
    assert.deepEqual(Object.fromEntries(withProbe.rows.map((row) => [row.name, row.route])), {
      'GET /': '/',
      'GET /items/42': '/items/:id',
      'GET /shop/cart': '/shop/cart',
      'GET /nope': null,
    });
  });
});
