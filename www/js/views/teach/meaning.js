// The Context-vectors tab: for each word, the vocabulary words nearest to its
// own vector and to its context vector (what attention mixed into it), by
// cosine similarity, exact (engine.nearest re-ranks the index's candidates
// with their exact vectors).
//
// Each row costs two searches of the index (about 0.7 ms on a 2-core laptop;
// 1.7 ms before the search's rounded first pass, when 64 rows in one go were
// a task of 60–130 ms at every change of the sentence). The rows are found a
// slice at a time, a task each; until a row is found again it keeps the
// previous sentence's words, dimmed, and the table says it is busy.

import { el, putText } from '../../dom.js';
import { contextFigure } from '../../figure.js';
import { grouped } from '../../text.js';
import { taskPauses } from '../../vectors.js';
import { errorLine, nearestSearched, showNothing } from './common.js';

// Checked by the page when it fetches this module (engine.js sameBuild).
export const BUILT = 'unbuilt';

const NEAREST = 5;
/** Rows listed: each costs two searches of the index. */
const MAX_ROWS = 64;
/** A slice of searches stops after this long, then lets the page run (the next slice is a task of its own). */
const SLICE_MS = 10;

export function mountMeaning(lab, ctx) {
  lab.append(el('p', 'A context vector is a weighted mix of the sentence’s vectors. Its nearest vocabulary words (by cosine similarity) show what attention mixed into each word, beside the nearest words of the word’s own vector. The Steps tab lists the raw cosine similarity of the focused word with each key beside its weight.', 'note'));
  const table = el('table', null, 'steps-table meaning');
  table.id = 'meaning-table';
  const caption = el('caption');
  const head = el('thead');
  const hr = el('tr');
  for (const text of ['word', 'nearest to its own vector', 'nearest to its context vector']) {
    const th = el('th', text);
    th.scope = 'col';
    hr.append(th);
  }
  head.append(hr);
  const body = el('tbody');
  table.append(caption, head, body);
  const scroll = el('div', null, 'table-scroll');
  scroll.tabIndex = 0;
  scroll.setAttribute('aria-label', 'Nearest words, scrollable');
  scroll.append(table);
  const nothing = errorLine('meaning-nothing');
  lab.append(nothing, scroll);
  let shown = null;
  // The numbers of the tab: every word's context vector, as CSV or JSON.
  ctx.figures.set('meaning', {
    name: 'the context vectors',
    formats: ['csv', 'json'],
    why: 'its numbers are negative and positive, and the heatmap’s colours run from 0 up',
    visible: () => Boolean(shown?.data) && !lab.hidden && ctx.shows('lab', ctx.store.get()),
    figure: () => (shown?.data ? contextFigure(shown) : null),
  });

  /** Writes row `i`: the word, then its two lists. */
  function putRow(i, word, own, mixed) {
    let tr = body.rows[i];
    if (!tr) {
      tr = el('tr');
      const th = el('th');
      th.scope = 'row';
      tr.append(th, el('td', null, 'words own'), el('td', null, 'words mixed'));
      body.append(tr);
    }
    const list = (found) => found.map((w) => `${w.word} ${w.similarity.toFixed(2)}`).join(' · ');
    putText(tr.cells[0], word);
    putText(tr.cells[1], list(own));
    putText(tr.cells[2], list(mixed));
    tr.classList.remove('stale');
  }

  async function fill(analysis) {
    const { labels, dim: d } = analysis;
    const rows = Math.min(analysis.n, MAX_ROWS);
    table.setAttribute('aria-busy', 'true');
    putText(caption, 'Finding the nearest words…');
    while (body.rows.length > rows) body.lastElementChild.remove();
    for (const tr of body.rows) tr.classList.add('stale');
    const pause = taskPauses(SLICE_MS);
    for (let i = 0; i < rows; i++) {
      if (await pause() && shown !== analysis) return;
      const [own, mixed] = await Promise.all([
        ctx.engine.nearest(analysis.vectors.subarray(i * d, (i + 1) * d), NEAREST),
        ctx.engine.nearest(analysis.contextOf(i), NEAREST),
      ]);
      if (shown !== analysis) return;
      putRow(i, labels[i], own, mixed);
    }
    const more = analysis.n > rows ? `; the first ${rows} of ${analysis.n} words` : '';
    putText(caption, `Nearest of the ${grouped(nearestSearched(ctx, analysis))} most frequent vocabulary words by cosine similarity, with the similarity${more}`);
    table.removeAttribute('aria-busy');
  }

  return {
    render(state, analysis) {
      if (analysis.pending || analysis === shown) return;
      shown = analysis; // a search still running for an older sentence stops
      if (showNothing(nothing, [scroll], analysis)) return;
      fill(analysis).catch((error) => {
        if (shown !== analysis) return;
        body.replaceChildren();
        putText(caption, `The nearest words could not be found: ${error.message}.`);
        table.removeAttribute('aria-busy');
      });
    },
  };
}
