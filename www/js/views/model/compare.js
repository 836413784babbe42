// The focused word side by side: where it looks with raw GloVe vectors, and
// in the open head of the trained model, as bars.

import { el } from '../../dom.js';
import { changedOptions } from '../../state.js';
import { quoted, weight } from '../../text.js';

const LIMIT = 40;

function maxOf(values) {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  return max > 0 ? max : 1;
}

/** One column of the comparison: the keys of a focused query, as bars. */
function column(heading, labels, row, focusIndex, note) {
  const box = el('div', null, 'compare-column');
  box.append(el('h3', heading));
  if (!row) {
    box.append(el('p', note, 'hint'));
    return box;
  }
  const list = el('ol', null, 'compare-list');
  const max = maxOf(row);
  let order = [...labels.keys()];
  if (order.length > LIMIT) order = order.sort((a, b) => row[b] - row[a]).slice(0, LIMIT).sort((a, b) => a - b);
  for (const j of order) {
    const item = el('li', null, j === focusIndex ? 'self' : '');
    const bar = el('span', null, 'bar');
    bar.style.width = `${((row[j] / max) * 100).toFixed(1)}%`;
    const cell = el('span', null, 'bar-cell');
    cell.append(bar);
    item.append(el('span', labels[j], 'compare-key'), cell, el('span', weight(row[j]), 'compare-value'));
    list.append(item);
  }
  box.append(list);
  return box;
}

/**
 * Renders the comparison into `target`. glove: the page's analysis (or null);
 * run: the model's result (or null); hv: the open head's weights; focus: the
 * model token in focus; shownHead: { layer, head } or null.
 */
export function renderCompare(target, { state, glove, run, hv, focus, shownHead }) {
  const gloveFocus = state.focus;
  const hasGlove = glove && !glove.pending && !glove.error && glove.n;
  const gloveWord = gloveFocus !== null && hasGlove ? glove.labels[gloveFocus] : null;
  const modelWord = focus !== null && run ? run.labels[focus] : null;
  const title = el('p', null, 'compare-title');
  if (gloveWord === null && modelWord === null) title.textContent = 'Click a word (above, or in either heatmap) to compare where it looks.';
  else title.append('Where ', el('q', modelWord ?? gloveWord), ' looks');
  target.dataset.gloveWord = gloveWord ?? '';
  target.dataset.modelWord = modelWord ?? '';
  const gloveRow = gloveWord !== null ? glove.weights.subarray(gloveFocus * glove.n, (gloveFocus + 1) * glove.n) : null;
  // The page's word vectors: GloVe, or the reader's own file.
  const own = glove?.engine?.source;
  const vectors = own ? 'your vectors' : 'GloVe';
  const gloveNote = !hasGlove ? `No ${vectors} attention for this sentence (no word in its vocabulary).`
    : modelWord !== null ? `${quoted(modelWord)} is not a word of ${vectors} here (unknown, or [CLS]/[SEP]).` : 'Nothing focused.';
  const columns = el('div', null, 'compare-columns');
  const name = shownHead ? `layer ${shownHead.layer}, head ${shownHead.head}` : 'the open head';
  // The page's options shape this column only (the model's heads take none): its title names them.
  const options = changedOptions(state, { looks: false }).map((o) => `, ${o}`).join('');
  columns.append(
    column(`${own ? `Your vectors (${quoted(own.name)}): raw` : 'GloVe: raw vectors'}${options}`, hasGlove ? glove.labels : [], gloveRow, gloveFocus, gloveNote),
    column(`MiniLM: ${name}`, run ? run.labels : [], modelWord !== null && hv ? hv.weights.subarray(focus * hv.n, (focus + 1) * hv.n) : null, focus,
      run ? 'Nothing focused.' : 'Waiting for the model…'),
  );
  target.replaceChildren(title, columns);
}
