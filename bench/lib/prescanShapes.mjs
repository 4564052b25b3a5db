// Bodies for bench/prescan.mjs: JSON as APIs answer it, none holding a secret (the pre-scan's fast path, where
// it reads the whole text), in the shapes whose cost differs: member names, dates, URLs, long text, unicode,
// escapes, nesting, white space.
import { answerOf } from './answer.mjs';

/** Records of an API list: URLs with queries, long free text, tags. */
function apiList(bytes) {
  const items = [];
  const words = 'the quick brown fox jumps over a lazy dog while every order ships within two days of payment'.split(' ');
  let size = 2;
  for (let id = 1; size < bytes; id++) {
    let text = '';
    for (let w = 0; text.length < 400; w++) text += words[(id * 7 + w * 3) % words.length] + ' ';
    const item = {
      id: `prd_${id.toString(36).padStart(8, '0')}`,
      url: `https://api.example.test/v2/products/${id}?expand=variants&locale=en-GB&page=${id % 9}`,
      image: `https://cdn.example.test/img/${id}/main.webp?w=640&h=480&fit=crop`,
      title: `Product number ${id}`,
      description: text.trim(),
      tags: ['new', 'sale', 'eco'].slice(0, 1 + (id % 3)),
      updated: new Date(Date.UTC(2026, 0, 1 + (id % 28), id % 24, id % 60, 7)).toISOString(),
      price: { amount: 1000 + id, currency: 'EUR' },
    };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return JSON.stringify({ data: items, has_more: true, next: '/v2/products?cursor=abc123' });
}

/** Text in several scripts: accents, CJK, emoji (a two-byte string in V8). */
function unicode(bytes) {
  const items = [];
  let size = 2;
  for (let id = 1; size < bytes; id++) {
    const item = {
      id,
      name: `Zoë Ångström ${id}`,
      city: 'Zürich',
      title: '東京の天気は晴れです',
      bio: 'Привет, мир! Καλημέρα κόσμε. 🚀✨ café, naïve, façade',
      lang: ['fr', 'ja', 'ru', 'el'][id % 4],
    };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return JSON.stringify({ users: items });
}

/** Strings full of escapes: quotes, new lines, backslashes, HTML (every string decoded once). */
function escapes(bytes) {
  const items = [];
  let size = 2;
  for (let id = 1; size < bytes; id++) {
    const item = {
      id,
      html: `<p class="intro">Item ${id} said "hello"</p>\n<a href="/items/${id}">more</a>`,
      path: `C:\\Users\\item${id}\\file.txt`,
      quote: `He wrote: "see ${id}" and left\ttab`,
    };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return JSON.stringify(items);
}

/** A deep tree: objects in objects, few strings, many short names. */
function nested(bytes) {
  const node = (depth, id) =>
    depth === 0 ? { leaf: id, on: true, w: 0.5 } : { kind: 'branch', depth, left: node(depth - 1, id * 2), right: node(depth - 1, id * 2 + 1) };
  const trees = [];
  let size = 2;
  for (let id = 1; size < bytes; id++) {
    const tree = node(5, id);
    size += JSON.stringify(tree).length + 1;
    trees.push(tree);
  }
  return JSON.stringify({ trees });
}

const pretty = (text) => JSON.stringify(JSON.parse(text), null, 2);

/** [name, text] pairs for the sizes asked. */
export function prescanShapes(sizes) {
  // The bench's small answer without its secret, and one record: the per-body cost, not the per-byte one.
  const shapes = [
    ['small 46 B', JSON.stringify({ ok: true, items: [1, 2, 3], user: { name: 'ada' } })],
    ['one record', JSON.stringify(JSON.parse(answerOf(5120)).items[0])],
  ];
  for (const bytes of sizes) {
    const kb = `${Math.round(bytes / 1024)} KB`;
    shapes.push([`answer page ${kb}`, answerOf(bytes)]);
    shapes.push([`answer page ${kb}, pretty`, pretty(answerOf(bytes))]);
    shapes.push([`API list ${kb}`, apiList(bytes)]);
    shapes.push([`unicode ${kb}`, unicode(bytes)]);
    shapes.push([`escapes ${kb}`, escapes(bytes)]);
    shapes.push([`nested ${kb}`, nested(bytes)]);
  }
  return shapes;
}
