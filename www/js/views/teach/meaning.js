// The Context-vectors tab: for each word, the vocabulary words nearest to its
// own vector and to its context vector (what attention mixed into it), by
// cosine similarity, exact (engine.nearest re-ranks the index's candidates
// with their exact vectors).

import { el } from '../../dom.js';
import { grouped } from '../../text.js';

const NEAREST = 5;
/** Rows listed: the nearest-word search costs one pass over the index per row. */
const MAX_ROWS = 64;

export function mountMeaning(lab, ctx) {
  lab.append(el('p', 'A context vector is a weighted mix of the sentence’s vectors. Its nearest vocabulary words (by cosine similarity) show what attention mixed into each word, beside the nearest words of the word’s own vector. The Steps tab lists the raw cosine similarity of the focused word with each key beside its weight.', 'note'));
  const table = el('table', null, 'steps-table meaning');
  table.id = 'meaning-table';
  const scroll = el('div', null, 'table-scroll');
  scroll.tabIndex = 0;
  scroll.setAttribute('aria-label', 'Nearest words, scrollable');
  scroll.append(table);
  lab.append(scroll);
  let shown = null;

  async function fill(analysis) {
    const { labels, dim: d } = analysis;
    const rows = Math.min(analysis.n, MAX_ROWS);
    const head = el('thead');
    const hr = el('tr');
    for (const text of ['word', 'nearest to its own vector', 'nearest to its context vector']) {
      const th = el('th', text);
      th.scope = 'col';
      hr.append(th);
    }
    head.append(hr);
    const body = el('tbody');
    const list = (found) => found.map((w) => `${w.word} ${w.similarity.toFixed(2)}`).join(' · ');
    for (let i = 0; i < rows; i++) {
      const [own, mixed] = await Promise.all([
        ctx.engine.nearest(analysis.vectors.subarray(i * d, (i + 1) * d), NEAREST),
        ctx.engine.nearest(analysis.contextOf(i), NEAREST),
      ]);
      if (shown !== analysis) return;
      const tr = el('tr');
      const th = el('th', labels[i]);
      th.scope = 'row';
      tr.append(th, el('td', list(own), 'words own'), el('td', list(mixed), 'words mixed'));
      body.append(tr);
    }
    const more = analysis.n > rows ? `; the first ${rows} of ${analysis.n} words` : '';
    const size = ctx.engine.vectors.manifest.neighbors?.words ?? analysis.n;
    table.replaceChildren(el('caption', `Nearest of the ${grouped(size)} most frequent vocabulary words by cosine similarity, with the similarity${more}`), head, body);
  }

  return {
    render(state, analysis) {
      if (analysis.pending || analysis.error || !analysis.n || analysis === shown) return;
      shown = analysis;
      table.replaceChildren(el('caption', 'Finding the nearest words…'));
      fill(analysis).catch((error) => {
        if (shown === analysis) table.replaceChildren(el('caption', `The nearest words could not be found: ${error.message}.`));
      });
    },
  };
}
