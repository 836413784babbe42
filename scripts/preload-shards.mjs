// Lists, in a built page, the vector shards of the sentence the page opens
// with when its link names none (<meta name="default-shards">), so that
// boot.js can request them while the wasm downloads: start.js can only ask
// for a link's shards once the wasm is in to tokenize it. The shards are
// found as the page finds them: its own state.js (the default state),
// vectors.js (every round of missing shards) and wasm, run here in Node on
// the built data.
// Run by scripts/build:  node scripts/preload-shards.mjs dist/index.html
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const page = process.argv[2];
const root = path.resolve(path.dirname(page));
const at = (file) => pathToFileURL(path.join(root, file));
const wasm = await import(at('pkg/attention_wasm.js').href);
wasm.initSync({ module: readFileSync(path.join(root, 'pkg/attention_wasm_bg.wasm')) });
const { parseHash, textsOf } = await import(at('js/state.js').href);
const { checkManifest, VectorStore } = await import(at('js/vectors.js').href);

const base = at('data/glove-6b-50d/manifest.json');
const manifest = checkManifest(JSON.parse(readFileSync(base, 'utf8')));
const explorer = wasm.Explorer.sharded(manifest.dim, manifest.shards, manifest.set, manifest.words);
const files = [];
const fetch = async (url) => {
  files.push(path.relative(root, fileURLToPath(url)).split(path.sep).join('/'));
  return new Response(readFileSync(url));
};
const store = new VectorStore({ explorer, manifest, base, fetch });
const text = textsOf(parseHash(''));
await store.ensure(text);
if (store.anyFailed) throw new Error(`a shard of the default sentence could not be read: ${[...store.failed.values()].join('; ')}`);

const marker = '<!-- default-shards -->';
const html = readFileSync(page, 'utf8');
if (!html.includes(marker)) throw new Error(`${page} has no ${marker} line`);
writeFileSync(page, html.replace(marker, `<meta name="default-shards" content="${files.join(' ')}">`));
console.error(`${page}: the ${files.length} shards of "${text}" listed for boot.js`);
