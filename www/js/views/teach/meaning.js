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
//
// A text longer than a page (MAX_ROWS words) lists the page that holds the
// focused word, marked, and scrolls the table to it; rows found stay found
// while the sentence does, so going back to a page searches nothing again.

import { attr, el, put, putText } from '../../dom.js';
import { contextFigure } from '../../figure.js';
import { repeatsOf } from '../../teach-steps.js';
import { grouped } from '../../text.js';
import { taskPauses } from '../../vectors.js';
import { errorLine, nearestSearched, showNothing } from './common.js';

// Checked by the page when it fetches this module (engine.js sameBuild).
export const BUILT = 'unbuilt';

const NEAREST = 5;
/** Rows listed at a time (a page): each costs two searches of the index. */
const MAX_ROWS = 64;
/** A slice of searches stops after this long, then lets the page run (the next slice is a task of its own). */
const SLICE_MS = 10;

/** The first row of the page that lists `focus` (none: the first page) in a text of `n` words. */
function pageStart(n, focus) {
  return focus !== null && focus < n ? Math.floor(focus / MAX_ROWS) * MAX_ROWS : 0;
}

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
  let shown = null; // the analysis listed
  let first = 0; // its page's first row
  let found = new Map(); // row → [own, mixed] of the analysis shown
  let run = null; // the fill under way: a newer one stops it
  let focus = null; // the focused word
  let revealed = null; // the focused word the table was last scrolled to: another change (the threshold, the theme) leaves the reader's scroll alone
  // The numbers of the tab: every word's context vector, as CSV or JSON.
  ctx.figures.set('meaning', {
    name: 'the context vectors',
    formats: ['csv', 'json'],
    why: 'its numbers are negative and positive, and the heatmap’s colours run from 0 up',
    visible: () => Boolean(shown?.data) && !lab.hidden && ctx.shows('lab', ctx.store.get()),
    figure: () => (shown?.data ? contextFigure(shown) : null),
  });

  /** Writes row `i` of the text at line `line` of the table: the word (its place when the text repeats it), then its two lists. */
  function putRow(line, i, labels, [own, mixed]) {
    let tr = body.rows[line];
    if (!tr) {
      tr = el('tr');
      const th = el('th');
      th.scope = 'row';
      tr.append(th, el('td', null, 'words own'), el('td', null, 'words mixed'));
      body.append(tr);
    }
    const list = (found) => found.map((w) => `${w.word} ${w.similarity.toFixed(2)}`).join(' · ');
    attr(tr, 'aria-rowindex', String(i + 2));
    tr.dataset.row = String(i);
    putText(tr.cells[0], labels[i]);
    attr(tr.cells[0], 'data-place', repeatsOf(labels).has(labels[i]) ? String(i + 1) : null);
    putText(tr.cells[1], list(own));
    putText(tr.cells[2], list(mixed));
    tr.classList.remove('stale');
  }

  /** Marks the focused word's row and, with `reveal`, scrolls the table to it (the table's box only, never the page). */
  function markFocus(reveal = true) {
    let row = null;
    for (const tr of body.rows) {
      const focused = focus !== null && tr.dataset.row === String(focus);
      put(tr, 'className', [focused ? 'picked' : '', tr.classList.contains('stale') ? 'stale' : ''].join(' ').trim());
      attr(tr, 'aria-current', focused ? 'true' : null);
      if (focused) row = tr;
    }
    if (!row || !reveal || lab.hidden) return;
    revealed = focus;
    ctx.afterPaint(() => {
      if (!row.isConnected) return;
      const top = row.offsetTop - (table.tHead?.offsetHeight ?? 0);
      if (top < scroll.scrollTop || row.offsetTop + row.offsetHeight > scroll.scrollTop + scroll.clientHeight) scroll.scrollTop = top;
    });
  }

  /** The caption of the rows found: what was searched, and which words of a long text are listed. */
  function done(analysis) {
    const last = Math.min(analysis.n, first + MAX_ROWS);
    putText(caption, `Nearest of the ${grouped(nearestSearched(ctx, analysis))} most frequent vocabulary words by cosine similarity, with the similarity${pageText(analysis.n, first, last, focus)}`);
    table.removeAttribute('aria-busy');
  }

  async function fill(analysis) {
    const me = (run = {});
    const { labels, dim: d, n } = analysis;
    const last = Math.min(n, first + MAX_ROWS);
    const rows = last - first;
    table.setAttribute('aria-busy', 'true');
    attr(table, 'aria-rowcount', n > MAX_ROWS ? String(n + 1) : null);
    putText(caption, 'Finding the nearest words…');
    while (body.rows.length > rows) body.lastElementChild.remove();
    for (const tr of body.rows) tr.classList.add('stale');
    const pause = taskPauses(SLICE_MS);
    for (let i = first; i < last; i++) {
      if (!found.has(i)) {
        if (await pause() && run !== me) return;
        const pair = await Promise.all([
          ctx.engine.nearest(analysis.vectors.subarray(i * d, (i + 1) * d), NEAREST),
          ctx.engine.nearest(analysis.contextOf(i), NEAREST),
        ]);
        if (run !== me) return;
        found.set(i, pair);
      }
      putRow(i - first, i, labels, found.get(i));
      // Marked as soon as it is found; scrolled to once the rows above and below it are in.
      if (i === focus) markFocus(false);
    }
    run = null;
    done(analysis);
    markFocus();
  }

  return {
    render(state, analysis) {
      if (analysis.pending) return;
      focus = state.focus;
      const page = pageStart(analysis.n, focus);
      if (analysis === shown && page === first) {
        markFocus(focus !== revealed);
        if (!run && analysis.n > MAX_ROWS) done(analysis);
        return;
      }
      if (analysis !== shown) found = new Map();
      shown = analysis; // a search still running for an older sentence or page stops
      first = page;
      if (showNothing(nothing, [scroll], analysis)) {
        run = null;
        return;
      }
      fill(analysis).catch((error) => {
        if (shown !== analysis) return;
        body.replaceChildren();
        putText(caption, `The nearest words could not be found: ${error.message}.`);
        table.removeAttribute('aria-busy');
      });
    },
  };
}

/** Which words of a long text the table lists, for its caption ('' when it lists them all). */
function pageText(n, first, last, focus) {
  if (n <= MAX_ROWS) return '';
  const span = `words ${grouped(first + 1)}–${grouped(last)} of ${grouped(n)}`;
  return focus !== null && focus < n ? `; ${span}, the page of the focused word` : `; ${span}: focus a word to list its page of ${MAX_ROWS}`;
}
