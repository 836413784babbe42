// Entry point of the full page: every view, in the order the page shows them.
import { startPage } from './page.js';
import { mountArrows } from './views/arrows.js';
import { mountHeatmap } from './views/heatmap.js';
import { mountLab } from './views/lab.js';
import { mountModelSlot } from './views/transformer.js';
import { mountOptions } from './views/options.js';
import { mountSentence } from './views/sentence.js';
import { mountShare } from './views/share.js';
import { mountSource } from './views/source.js';
import { mountStatus } from './views/status.js';
import { mountTable } from './views/table.js';
import { mountTokens } from './views/tokens.js';

startPage({
  views: [mountSentence, mountTokens, mountOptions, mountSource, mountStatus, mountHeatmap, mountArrows, mountLab, mountModelSlot, mountTable, mountShare],
}).catch((error) => window.attentionExplorerFailed?.(error));
