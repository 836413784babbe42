// Writes <link rel="modulepreload"> tags for every module an entry script
// imports statically, into a built page, so that the browser fetches the
// whole module graph at once instead of one level of imports at a time.
// Run by scripts/build:  node scripts/preload-modules.mjs dist/index.html js/main.js
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const [page, entry] = process.argv.slice(2);
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
visit(entry);
seen.delete(entry);
const tags = [...seen].sort().map((file) => `  <link rel="modulepreload" href="${file}">`).join('\n');
const html = readFileSync(page, 'utf8');
const marker = '<!-- modulepreload -->';
if (!html.includes(marker)) throw new Error(`${page} has no ${marker} line`);
writeFileSync(page, html.replace(marker, `${marker}\n${tags}`));
console.error(`${page}: ${seen.size} modules preloaded`);
