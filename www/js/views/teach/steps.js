// The Steps tab: how the focused word's row of the heatmap is computed, with
// the analysis's own numbers (q·k, ÷√d, exp, the sum, the weights, Σ w·v),
// and, for a clicked cell, its dot product term by term. Below: the words
// nearest to the word's context vector and to its own vector, exact, loaded
// after the panel is painted.

import { el } from '../../dom.js';
import { grouped, isolate, quoted, weight } from '../../text.js';
import { heaviestKeys, num, renderSteps } from '../../teach-steps.js';
import { nearestSearched } from './common.js';

const NEAREST = 6;

export function mountSteps(panel, ctx) {
  const { store } = ctx;
  const target = el('div', null, 'explain');
  target.id = 'explain';
  target.setAttribute('role', 'group');
  target.setAttribute('aria-label', 'Step by step');
  panel.append(target);
  let shown = null; // `${analysis key} ${focus} ${cell}` last rendered

  /** Shows `text` alone; a hint already shown stays (each keystroke of a text with no focus gave a new paragraph to lay out). */
  function hint(text) {
    const shownHint = target.childElementCount === 1 && target.firstElementChild.matches('p.hint') ? target.firstElementChild : null;
    if (shownHint?.textContent !== text) target.replaceChildren(el('p', text, 'hint'));
  }

  return {
    immediate: true,
    render(state, analysis) {
      if (analysis.pending) return;
      if (analysis.error || !analysis.n) {
        shown = null;
        hint(analysis.error ? 'Type a sentence with a few English words.' : 'Loading…');
        return;
      }
      // The page's focus and cell past the sentence's end (named by the page, page.js normalize): the hint, and no cell.
      const i = state.focus;
      const key = [analysis.n, analysis.state?.sentence, i, state.cell];
      if (shown && shown.analysis === analysis && shown.key.join() === key.join()) return;
      shown = { analysis, key };
      if (i === null || i >= analysis.n) {
        hint('Click a row, a label, a curve end or a word above (or Tab to the heatmap and use the arrow keys) to see how that word’s attention is computed, step by step.');
        return;
      }
      const steps = analysis.steps(i);
      const cell = state.cell !== null && state.cell < analysis.n ? analysis.cell(i, state.cell) : null;
      const word = analysis.labels[i];
      const masked = analysis.fullyMasked[i] === 1;
      const searched = grouped(nearestSearched(ctx, analysis));
      const nearest = nearestLines(word, ctx.engine?.source ? `the ${searched} words of your file` : `the ${searched} most frequent words`);
      renderSteps(target, {
        word,
        rowLabels: analysis.labels,
        keyLabels: analysis.labels,
        steps,
        cell,
        settings: { scale: state.scale, temperature: state.temperature },
        scaleDim: analysis.dim,
        values: null,
        fullyMasked: masked,
        onClear: () => store.update({ focus: null, cell: null }, 'push'),
        onCell: (j) => store.update({ cell: j === state.cell ? null : j }, 'push'),
        extra: masked ? [] : [contextSummary(word, analysis.labels, steps), ...nearest.nodes],
      });
      if (!masked) fillNearest(analysis, i, nearest);
    },
  };

  /**
   * The nearest words of a row: in this frame when nothing needs fetching
   * (the engine keeps its last searches), else filled in after the paint,
   * once the index and the candidates' shards are in.
   */
  function fillNearest(analysis, i, { context, own, nodes }) {
    const d = analysis.dim;
    // Each word isolated: a right-to-left word of a file would take the number after it into its run.
    const show = (list) => list.map((w) => `${isolate(w.word)} ${w.similarity.toFixed(2)}`).join(' · ');
    const { engine } = ctx;
    const [output, input] = [analysis.contextOf(i), analysis.vectors.subarray(i * d, (i + 1) * d)];
    const mixed = engine?.nearestNow(output, NEAREST);
    const self = engine?.nearestNow(input, NEAREST);
    if (mixed && self) {
      context.textContent = show(mixed);
      own.textContent = show(self);
      return;
    }
    ctx.afterPaint(async () => {
      if (!context.isConnected || ctx.engine !== engine || !engine) return;
      try {
        const [found, ownFound] = await Promise.all([
          engine.nearest(output, NEAREST),
          engine.nearest(input, NEAREST),
        ]);
        context.textContent = show(found);
        own.textContent = show(ownFound);
      } catch {
        for (const node of nodes) node.remove();
      }
    });
  }
}

/** The lines of the nearest words, searched among `searched` (the words of the index: GloVe's 20,000 most frequent). */
function nearestLines(word, searched) {
  const nearest = el('p', null, 'nearest');
  const context = el('span', '…', 'nearest-words');
  nearest.append(`Words nearest to the context vector of ${quoted(word)} (cosine, among ${searched}): `, context);
  const ownLine = el('p', null, 'nearest');
  const own = el('span', '…', 'nearest-words own');
  ownLine.append('…and to its own vector: ', own);
  return { context, own, nodes: [nearest, ownLine] };
}

/**
 * Step 4 for a sentence: the heaviest terms of Σ weight × v, in words, and
 * the first dimensions of the result. The words are isolated (`quoted`,
 * `isolate`): a right-to-left one would otherwise swap places with the
 * numbers beside it.
 */
function contextSummary(word, labels, steps) {
  const { keys, total } = heaviestKeys(steps.weights, 4);
  const terms = keys.map((j) => `${weight(steps.weights[j])} × v(${isolate(labels[j])})`);
  const p = el('p', null, 'context-sum');
  p.append(`Step 4: context of ${quoted(word)} = ${terms.join(' + ')}${total > 4 ? ` + … (${total - 4} more)` : ''} = [${contextText(steps.context)}].`);
  return p;
}

/** The first numbers of a context vector, and how many there are (all of a short one, with no "1 numbers"). */
function contextText(context) {
  const first = [...context.slice(0, 4)].map((c) => num(c, 4)).join(', ');
  return context.length > 4 ? `${first}, … ${context.length} numbers` : first;
}
