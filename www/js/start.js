// The first module of the page, with a small import graph of its own: it
// starts the downloads the first heatmap waits for (the wasm, the vectors'
// manifest, then the shards of the link's words; index.html preloads those
// of the default text) while the views' modules are still arriving. The page
// (page.js) finds them under way: engineHub() gives it the same wasm and
// engine, and the shards in flight are shared. It draws nothing and reports
// nothing: the page says what failed.

import { engineHub, warmUpFor } from './engine.js';
import { parseHash, textsOf } from './state.js';
import { roughCut } from './text.js';

// The page's mode (an embed shares its engine with the other widgets of its
// post) is on <body>, parsed long before these imports are in; were it not
// there yet, the page would start the downloads itself, as it can.
const body = document.body;
if (body) {
  engineHub({ share: body.dataset.mode === 'embed' }).engine.then((engine) => {
    const state = parseHash(location.hash);
    // A text beyond the limit is cut by the page before any of its shards is fetched.
    if (roughCut(state.sentence, engine.wasm.maxTokens()) < 0) engine.vectors.ensure(textsOf(state));
    // The shards index.html preloads (the default text's: scripts/first-shards.mjs)
    // are read whatever the link's text: they hold the commonest words, and
    // a preload left unread is a warning in the console.
    for (const link of document.querySelectorAll('link[data-shard]')) engine.vectors.load(Number(link.dataset.shard));
    warmUpFor(engine.wasm, textsOf(state));
  }, () => {});
}
