// Entry point of the embed page (embed.html): the heatmap, the arrows and the
// options, no page chrome; it reports its height to the host page.
import { startPage } from './page.js';
import { mountArrows } from './views/arrows.js';
import { mountHeatmap } from './views/heatmap.js';
import { mountOptions } from './views/options.js';
import { mountStatus } from './views/status.js';
import { mountTable } from './views/table.js';
import { mountTokens } from './views/tokens.js';

const openFull = document.getElementById('open-full');

startPage({
  embed: true,
  views: [mountTokens, mountOptions, mountStatus, mountHeatmap, mountArrows, mountTable],
  onHash: (hash) => {
    if (openFull) openFull.href = new URL('index.html', location.href).href + hash;
  },
}).catch((error) => window.attentionExplorerFailed?.(error));

if (window.parent !== window) {
  // Tell the host page our height, so that the iframe fits its content.
  let last = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== last) {
      last = height;
      window.parent.postMessage({ type: 'attention-explorer:height', height }, '*');
    }
  }).observe(document.documentElement);
}
