// The first module of the page, with a small import graph of its own: it
// starts the downloads the first heatmap waits for (the wasm, the vectors'
// manifest, then the shards of the link's words) while the views' modules
// are still arriving. The page (page.js) finds them under way: engineHub()
// gives it the same wasm and engine, and the shards in flight are shared.
// It draws nothing and reports nothing: the page says what failed.

import { engineHub } from './engine.js';
import { parseHash, textsOf } from './state.js';
import { chunkCut } from './text.js';

const embed = document.body.dataset.mode === 'embed';
engineHub({ share: embed }).engine.then((engine) => {
  const text = textsOf(parseHash(location.hash));
  // A text beyond the limit is cut by the page before any of its shards is fetched.
  if (chunkCut(text, 2 * engine.wasm.maxTokens()) < 0) engine.vectors.ensure(text);
}, () => {});
