// The What-if tab: scaling on beside scaling off (one side is the page's own
// analysis, the other its flipped twin: computed with it, from the same dot
// products, while this tab is open; else once, when the tab asks), and the
// padding mask on the sentence padded with zero vectors.

import { control, el, input, put, scrolling } from '../../dom.js';
import { SLICED_ABOVE, sentenceCase } from '../../analysis.js';
import { MatrixPanel } from '../../matrix-panel.js';
import { MAX_PAD } from '../../teach-state.js';
import {
  attempt, compareRows, errorLine, labFocus, labSteps, meanMax, panelOptions, setTeach, showNothing, wholeNumberField,
} from './common.js';
import { linkCheck } from '../../params.js';
import { byTemperature } from '../../teach-steps.js';
import { counted, quoted } from '../../text.js';

// Checked by the page when it fetches this module (engine.js sameBuild).
export const BUILT = 'unbuilt';

export function mountWhatif(lab, ctx) {
  const { store } = ctx;
  const nothing = errorLine('whatif-nothing');
  const scalingNote = el('p', scalingText(50, true), 'note');
  scalingNote.id = 'whatif-scaling-note';
  lab.append(el('h3', 'Scaling on beside scaling off'), scalingNote, nothing);
  const focusPage = (row, col = null) => store.update({ focus: row, cell: col }, 'push');
  const sideOptions = (name) => ({ ctx, name, arrows: false, table: false, onFocus: (row) => focusPage(row), onCell: focusPage });
  const compareBox = el('div', null, 'compare');
  const scaled = new MatrixPanel(el('div'), sideOptions('Scaled'));
  const unscaled = new MatrixPanel(el('div'), sideOptions('Unscaled'));
  compareBox.append(scaled.root, unscaled.root);
  const compareTable = el('table', null, 'steps-table compare-table');
  compareTable.id = 'whatif-compare';
  const compareScroll = scrolling(compareTable, 'steps-scroll', 'The focused row, scaled and unscaled, scrollable');
  lab.append(compareBox, compareScroll);
  lab.append(
    el('h3', 'Temperature and the causal mask'),
    el('p', 'The temperature slider and the causal switch above change the GloVe views of the page (the trained model keeps its own: ÷√32, no temperature; cross-attention takes no causal mask): a temperature below 1 sharpens the softmax, above 1 flattens it; the causal mask hides later words, as in a decoder that writes one word at a time.', 'note'),
    el('h3', 'Padding mask'),
    el('p', 'Batches of sentences are padded to one length. The pad positions get zero vectors, and a padding mask hides them as keys, so that no word attends to them (their columns are hatched). The rows of the pads themselves still get computed and are simply ignored later.', 'note'),
  );
  const padInput = input('number', 'pad-length');
  const padError = errorLine('pad-length-error');
  const syncPad = wholeNumberField(padInput, padError, { min: 1, max: MAX_PAD, commit: 'change', use: (pad) => setTeach(store, { pad }) });
  lab.append(control('Pad the sentence to', padInput, 'positions'), padError);
  const padPanel = new MatrixPanel(el('div'), panelOptions(ctx, 'Padded', 'pad-weights'));
  const padSteps = el('div', null, 'explain lab-steps');
  lab.append(padPanel.root, padSteps);
  const results = [compareBox, compareScroll, padPanel.root, padSteps];
  const checkLink = linkCheck(ctx);

  function renderCompare(state, analysis) {
    // A long text's twin comes in slices, and draws when it is in.
    const other = attempt(() => analysis.flippedSoon(() => ctx.refresh()));
    if (other.error) return;
    if (!other.value) {
      compareTable.replaceChildren(el('caption', `Computing the ${state.scale ? 'unscaled' : 'scaled'} side…`));
      return;
    }
    const [on, off] = state.scale ? [analysis.data, other.value] : [other.value, analysis.data];
    // Nothing focused: the heatmaps mark no row, and the table compares the first (and says so).
    const row = state.focus ?? 0;
    // One colour scale for both sides: the difference is the point.
    const scaleMax = Math.max(on.scaleMax, off.scaleMax);
    // The page's temperature divides both sides: the labels say so.
    const byT = byTemperature(state.temperature);
    // A long text's two sides are painted in two tasks: one painting both took 50-60 ms at 1,024 tokens.
    scaled.show(on, { focus: state.focus, scaleMax, settings: { scaled: true }, caption: `÷ √${analysis.dim}${byT}: the largest weight of a row is ${meanMax(on).toFixed(2)} on average` });
    unscaled.show(off, { focus: state.focus, scaleMax, settings: { scaled: false }, later: analysis.n > SLICED_ABOVE, caption: `Unscaled: ${byT ? `scores${byT} only; ` : ''}the largest weight of a row is ${meanMax(off).toFixed(2)} on average (the same colour scale)` });
    compareRows(compareTable, on.colLabels, [
      [`weight ÷ √${analysis.dim}${byT}`, on.weights.subarray(row * on.cols, (row + 1) * on.cols)],
      [`weight unscaled${byT}`, off.weights.subarray(row * off.cols, (row + 1) * off.cols)],
    ], `Row of ${quoted(on.rowLabels[row])}${state.focus === null ? ', the first: no word is focused (click a row to compare it)' : ''}`);
  }

  function renderPadding(state, analysis) {
    const teach = state.teach;
    const padded = attempt(() => analysis.padded(teach.pad));
    // No padded panel for a text this tab cannot pad (past its 128 words): its message instead.
    put(padPanel.root, 'hidden', Boolean(padded.error));
    if (padded.error) {
      padSteps.replaceChildren(el('p', sentenceCase(padded.error.message), 'note'));
      return;
    }
    const { raw, data } = padded.value;
    const { focus, problems } = labFocus(ctx, teach, data.rows, data.cols);
    checkLink(problems);
    padPanel.show(data, { focus, caption: padCaption(data, teach.pad) });
    labSteps(padSteps, ctx, raw, data, focus, teach.lc, state);
  }

  return {
    controls(state) {
      syncPad(String(state.teach.pad), ctx.fromAddress);
    },
    render(state, analysis) {
      if (analysis.pending || showNothing(nothing, results, analysis)) return;
      put(scalingNote, 'textContent', scalingText(analysis.dim, state.self));
      renderCompare(state, analysis);
      renderPadding(state, analysis);
    },
  };
}

/**
 * Why scaling matters, for vectors of `dim` dimensions (the analysis's:
 * GloVe's 50, or the user's file's). Not "each row is one-hot": how sharp
 * depends on the sentence (a sentence of repeated words stays at 0.33) and
 * on the temperature; the captions give the figure.
 */
function scalingText(dim, self) {
  const which = self ? ', mostly on the word itself' : '';
  return `Dot products of ${dim}-dimensional vectors are large. Without the division by √d the softmax is sharper: rows put more of their weight on their largest key${which}, up to all of it. The captions give each side's average largest weight; the focused row of the sentence is compared below the two heatmaps.`;
}

/** What the padded panel shows: a pad length the sentence already fills is kept (it is the user's), and pads nothing. */
function padCaption(data, pad) {
  const real = data.padding.filter((p) => !p).length;
  if (data.cols > real) return `${counted(real, 'word')} padded to ${data.cols} positions: the hatched pad columns are masked (weight 0).`;
  return `The ${counted(real, 'word')} fill${real === 1 ? 's' : ''} ${pad < real ? 'more than ' : ''}the ${counted(pad, 'position')} asked for: nothing is padded (pad to ${real + 1} or more to see pad columns).`;
}
