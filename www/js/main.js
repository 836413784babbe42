// Entry point of the page and of the embed page (the same page in embed mode,
// `<body data-mode="embed">`): every view, in the order the page shows them.
import { fitFrame } from './embed-frame.js';
import { startPage } from './page.js';
import { mountArrows } from './views/arrows.js';
import { mountHeatmap } from './views/heatmap.js';
import { mountLab } from './views/lab.js';
import { mountOptions } from './views/options.js';
import { mountQuiz } from './views/quiz.js';
import { mountSentence } from './views/sentence.js';
import { mountShare } from './views/share.js';
import { mountSource } from './views/source.js';
import { mountStatus } from './views/status.js';
import { mountTable } from './views/table.js';
import { mountTokens } from './views/tokens.js';
import { mountModelSlot } from './views/transformer.js';

const embed = document.body.dataset.mode === 'embed';
const openFull = document.getElementById('open-full');

if (embed) fitFrame();
startPage({
  embed,
  views: [mountSentence, mountTokens, mountQuiz, mountOptions, mountSource, mountStatus, mountHeatmap, mountArrows, mountLab, mountModelSlot, mountTable, mountShare],
  onHash: (hash) => {
    if (openFull) openFull.href = new URL('index.html', location.href).href + hash;
  },
}).catch((error) => window.attentionExplorerFailed?.(error));
