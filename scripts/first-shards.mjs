// Names in the built page (dist/index.html) the shard files of its default
// text, as <link rel="preload"> tags: their requests go out with the wasm's,
// while the page's modules still arrive, rather than once the wasm and the
// vectors' manifest are in (the default page's first heatmap in 248 against
// 270 ms here: docs/performance.md). The shards are found as the page finds them:
// the page's shard store (www/js/vectors.js) with the built wasm fetches what
// the default state's text (www/js/state.js) needs, round after round, here
// from the built files. The page reads
// these shards whatever its link's text (js/start.js): they hold the commonest
// words, and a preload left unread is a warning in the console.
// Run by scripts/build, after the vectors are in dist/:  node scripts/first-shards.mjs dist
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseHash, textsOf } from '../www/js/state.js';
import { checkManifest, VectorStore } from '../www/js/vectors.js';

const dist = process.argv[2];
if (!dist) throw new Error('usage: node scripts/first-shards.mjs DIST');
const MARKER = '<!-- first shards -->';

const wasm = await import(pathToFileURL(path.join(dist, 'pkg', 'attention_wasm.js')).href);
wasm.initSync({ module: readFileSync(path.join(dist, 'pkg', 'attention_wasm_bg.wasm')) });
const base = pathToFileURL(path.join(dist, 'data', 'glove-6b-50d', 'manifest.json'));
const manifest = checkManifest(JSON.parse(readFileSync(base, 'utf8')));
const explorer = wasm.Explorer.sharded(manifest.dim, manifest.shards, manifest.set, manifest.words);
// The page's own shard store, reading the built files instead of fetching them.
const store = new VectorStore({ explorer, manifest, base, fetch: async (url) => new Response(await readFile(url)) });
const text = textsOf(parseHash(''));
await store.ensure(text);
if (store.failed.size > 0 || !store.ready(text)) {
  throw new Error(`scripts/first-shards.mjs: the shards of "${text}" could not all be read: ${[...store.failed.values()].join('; ') || 'still missing'}`);
}
const shards = Array.from({ length: manifest.shards }, (_, k) => k).filter((k) => explorer.hasShard(k));

const page = path.join(dist, 'index.html');
const html = readFileSync(page, 'utf8');
if (!html.includes(MARKER)) throw new Error(`${page} has no ${MARKER} line`);
const href = (k) => path.relative(dist, fileURLToPath(store.shardUrl(k))).split(path.sep).join('/');
const tags = shards.map((k) => `  <link rel="preload" href="${href(k)}" as="fetch" crossorigin data-shard="${k}">`);
writeFileSync(page, html.replace(MARKER, `${MARKER}\n${tags.join('\n')}`));
console.error(`${page}: ${shards.length} shards of "${text}" preloaded`);
