// Writes <link rel="modulepreload"> tags for every module the entry scripts
// import statically, into a built page, so that the browser fetches the
// whole module graph at once instead of one level of imports at a time. The
// first entry's modules come first (their requests go out first).
// Run by scripts/build:  node scripts/preload-modules.mjs dist/index.html js/start.js js/main.js
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [page, ...entries] = process.argv.slice(2);
const root = path.dirname(page);
const seen = new Set();
const visit = (file) => {
  if (seen.has(file)) return;
  seen.add(file);
  const source = readFileSync(path.join(root, file), 'utf8');
  // Static imports only: `import … from './x.js'` and `import './x.js'`; dynamic import() stays lazy.
  for (const [, spec] of source.matchAll(/^\s*(?:import|export)\s[^;'"]*?from\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]/gm)) {
    if (spec) visit(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)));
  }
};
const tags = [];
for (const entry of entries) {
  const before = seen.size;
  visit(entry);
  tags.push(...[...seen].slice(before).filter((file) => !entries.includes(file)).sort());
}
const lines = tags.map((file) => `  <link rel="modulepreload" href="${file}">`).join('\n');
const html = readFileSync(page, 'utf8');
const marker = '<!-- modulepreload -->';
if (!html.includes(marker)) throw new Error(`${page} has no ${marker} line`);
writeFileSync(page, html.replace(marker, `${marker}\n${lines}`));
console.error(`${page}: ${tags.length} modules preloaded`);
