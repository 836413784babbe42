// Bundles the page's ES modules (www/js) into dist/js with esbuild: each
// entry (the page's two scripts, the two workers, and the views loaded when
// they first open) becomes one module, and the code that several share goes
// into chunks of their own, their whitespace removed. The page then fetches
// 11 modules at first load instead of 35 (docs/benchmarks-page.md has the
// figures), named in <link rel="modulepreload"> tags so that their requests
// go out at once. Linked source maps let DevTools show the sources as written.
//
// Every output is written flat into dist/js, so that any module's
// import.meta.url is a file of js/, bundled or not: www/js/site.js relies on it.
// Run by scripts/build:  node scripts/bundle.mjs www/js dist
import { createRequire } from 'node:module';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [source, dist] = process.argv.slice(2);
if (!source || !dist) throw new Error('usage: node scripts/bundle.mjs SOURCE_JS DIST');
let esbuild;
try {
  esbuild = createRequire(path.join(ROOT, 'tests', 'package.json'))('esbuild');
} catch {
  console.error("scripts/bundle.mjs: esbuild is missing; run 'npm ci --prefix tests' (scripts/setup)");
  process.exit(1);
}

// Output name → module. The first two are the page's own scripts (index.html).
const ENTRIES = {
  start: 'start.js',
  main: 'main.js',
  'vectors-worker': 'vectors-worker.js',
  'model-worker': 'model-worker.js',
  'png-worker': 'png-worker.js',
  'model-view': 'views/model/view.js',
  whatif: 'views/teach/whatif.js',
  play: 'views/teach/play.js',
  heads: 'views/teach/heads.js',
  cross: 'views/teach/cross.js',
  meaning: 'views/teach/meaning.js',
};
const PAGE = ['start', 'main'];
const out = path.join(dist, 'js');

const { metafile } = await esbuild.build({
  entryPoints: Object.entries(ENTRIES).map(([name, file]) => ({ in: path.join(source, file), out: name })),
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  // Whitespace and syntax only: the functions keep their names, so that a
  // stack trace a reader reports, and a profile, say where (+10 KB gzipped).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: 'linked',
  // UTF-8 as written (the page's texts have curly quotes, arrows and maths), not \u escapes.
  charset: 'utf8',
  chunkNames: 'chunk-[hash]',
  metafile: true,
  logLevel: 'warning',
});
// The classic script that runs before the modules (index.html's <script defer>).
copyFileSync(path.join(source, 'boot.js'), path.join(out, 'boot.js'));

// The modules the page's scripts import statically, in the order their requests should go out.
const relative = (file) => path.relative(dist, file).split(path.sep).join('/');
const seen = new Set();
const visit = (file) => {
  if (seen.has(file)) return;
  seen.add(file);
  for (const { path: imported, kind } of metafile.outputs[file]?.imports ?? []) {
    if (kind === 'import-statement') visit(imported);
  }
};
const entries = PAGE.map((name) => relative(path.join(out, `${name}.js`)));
for (const entry of entries) visit(Object.keys(metafile.outputs).find((file) => relative(file) === entry));
const tags = [...seen].map(relative).filter((file) => !entries.includes(file))
  .map((file) => `  <link rel="modulepreload" href="${file}">`);
const page = path.join(dist, 'index.html');
const html = readFileSync(page, 'utf8');
const marker = '<!-- modulepreload -->';
if (!html.includes(marker)) throw new Error(`${page} has no ${marker} line`);
writeFileSync(page, html.replace(marker, `${marker}\n${tags.join('\n')}`));
const bytes = Object.entries(metafile.outputs).filter(([file]) => file.endsWith('.js')).reduce((sum, [, o]) => sum + o.bytes, 0);
console.error(`${out}: ${Object.keys(ENTRIES).length} entries and their chunks, ${bytes.toLocaleString('en')} bytes; ${page}: ${tags.length} modules preloaded`);
