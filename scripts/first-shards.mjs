// Names in the built page (dist/index.html) the shard files of its default
// text, as <link rel="preload"> tags: their requests go out with the wasm's,
// while the page's modules still arrive, rather than once the wasm and the
// vectors' manifest are in (the default page's first heatmap in 248 against
// 270 ms here: README, How fast). The shards are found as the page finds them: the
// built wasm tokenizes the default state's text (www/js/state.js) against the
// built shard set, round after round, until it needs none. The page reads
// these shards whatever its link's text (js/start.js): they hold the commonest
// words, and a preload left unread is a warning in the console.
// Run by scripts/build, after the vectors are in dist/:  node scripts/first-shards.mjs dist
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseHash, textsOf } from '../www/js/state.js';

const dist = process.argv[2];
if (!dist) throw new Error('usage: node scripts/first-shards.mjs DIST');
const VECTORS = 'data/glove-6b-50d';
const MARKER = '<!-- first shards -->';
/** Rounds of "what is missing": a known word can reveal one more (as js/vectors.js ensure). */
const MAX_ROUNDS = 8;

const wasm = await import(pathToFileURL(path.join(dist, 'pkg', 'attention_wasm.js')).href);
wasm.initSync({ module: readFileSync(path.join(dist, 'pkg', 'attention_wasm_bg.wasm')) });
const manifest = JSON.parse(readFileSync(path.join(dist, VECTORS, 'manifest.json'), 'utf8'));
const explorer = wasm.Explorer.sharded(manifest.dim, manifest.shards, manifest.set, manifest.words);
const text = textsOf(parseHash(''));
const fileOf = (k) => `${VECTORS}/${manifest.files.replace('{k}', k.toString(16).padStart(4, '0'))}`;

const shards = [];
for (let round = 0; round < MAX_ROUNDS; round++) {
  const missing = Array.from(explorer.missingShards(text));
  if (missing.length === 0) break;
  for (const k of missing) {
    explorer.addShard(readFileSync(path.join(dist, fileOf(k))), k);
    shards.push(k);
  }
}
if (shards.length === 0 || explorer.missingShards(text).length > 0) {
  throw new Error(`scripts/first-shards.mjs: the shards of "${text}" could not be found in ${dist}/${VECTORS}`);
}

const page = path.join(dist, 'index.html');
const html = readFileSync(page, 'utf8');
if (!html.includes(MARKER)) throw new Error(`${page} has no ${MARKER} line`);
const tags = shards.map((k) => `  <link rel="preload" href="${fileOf(k)}" as="fetch" crossorigin data-shard="${k}">`);
writeFileSync(page, html.replace(MARKER, `${MARKER}\n${tags.join('\n')}`));
console.error(`${page}: ${shards.length} shards of "${text}" preloaded`);
