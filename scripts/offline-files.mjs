// Writes into a built service worker (dist/sw.js) the files it keeps at
// install, so that the page opens offline after one visit: every file of the
// page and its embed (pages, styles, scripts, the wasm, the vectors'
// manifest), but neither the shards (the worker keeps those a visit
// fetches) nor the trained model (its worker keeps its own). Also the
// version (a hash of those files: any change makes the browser install the
// worker again) and the shard set's id (shards of another set are dropped).
// The version is also stamped into the modules that carry it (see engine.js).
// Run by scripts/build:  node scripts/offline-files.mjs dist
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = process.argv[2];
if (!root) throw new Error('usage: node scripts/offline-files.mjs DIST');
const VECTORS = 'data/glove-6b-50d/manifest.json';
// Source maps are for DevTools, which fetches them when it opens.
const left = (file) => /^(data|model|pkg-model)\//.test(file) || file === 'sw.js' || file === '_headers' || file.endsWith('.map');

const files = [];
const walk = (dir) => {
  for (const name of readdirSync(path.join(root, dir)).sort()) {
    const file = dir ? `${dir}/${name}` : name;
    if (statSync(path.join(root, file)).isDirectory()) walk(file);
    else if (!left(file)) files.push(file);
  }
};
walk('');
files.push(VECTORS);

const hash = createHash('sha256');
for (const file of files) hash.update(`${file}\n`).update(readFileSync(path.join(root, file)));
const { set } = JSON.parse(readFileSync(path.join(root, VECTORS), 'utf8'));
if (!/^[0-9a-f]{16}$/.test(set)) throw new Error(`${VECTORS} names no shard set`);
const version = hash.digest('hex').slice(0, 16);

// The version in every module that carries it (engine.js sameBuild: a module
// fetched after a deploy is not run beside the page's older ones). In the
// bundles it is a string of its own, 'unbuilt' in the sources; a module that
// declares BUILT without it would never match the page's.
const STAMP = /(["'])unbuilt\1/g;
const stamped = files.filter((file) => file.startsWith('js/') && file.endsWith('.js')).filter((file) => {
  const source = readFileSync(path.join(root, file), 'utf8');
  if (source.search(STAMP) < 0) {
    if (/\bBUILT\s*=(?!=)/.test(source)) throw new Error(`${file} declares BUILT without the 'unbuilt' string to stamp`);
    return false;
  }
  writeFileSync(path.join(root, file), source.replace(STAMP, `"${version}"`));
  return true;
});
if (stamped.length === 0) throw new Error("no module carries the 'unbuilt' version to stamp (engine.js: export const BUILT = 'unbuilt')");

const worker = path.join(root, 'sw.js');
const source = readFileSync(worker, 'utf8');
const marker = /^const BUILD = .*$/m;
if (!marker.test(source)) throw new Error(`${worker} has no 'const BUILD = …' line`);
const build = { version, set, files: ['./', ...files] };
writeFileSync(worker, source.replace(marker, `const BUILD = ${JSON.stringify(build)};`));
console.error(`${worker}: ${build.files.length} files kept at install, version ${build.version}, stamped into ${stamped.length} modules`);
