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

import { attr, el, putText, scrolling } from '../../dom.js';
import { contextFigure } from '../../figure.js';
import { tableHead } from '../../heatmap-view.js';
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
  return new MeaningTab(lab, ctx);
}

/** Nearest words as the table writes them: each word and its cosine similarity, a "·" between. */
const list = (found) => found.map((w) => `${w.word} ${w.similarity.toFixed(2)}`).join(' · ');

/** The tab's table: the nearest words of each word of the page that holds the focus. */
class MeaningTab {
  constructor(lab, ctx) {
    this.lab = lab;
    this.ctx = ctx;
    lab.append(el('p', 'A context vector is a weighted mix of the sentence’s vectors. Its nearest vocabulary words (by cosine similarity) show what attention mixed into each word, beside the nearest words of the word’s own vector. The Steps tab lists the raw cosine similarity of the focused word with each key beside its weight.', 'note'));
    this.table = el('table', null, 'steps-table meaning');
    this.table.id = 'meaning-table';
    this.caption = el('caption');
    this.body = el('tbody');
    this.table.append(this.caption, tableHead('word', ['nearest to its own vector', 'nearest to its context vector']), this.body);
    this.scroll = scrolling(this.table, 'table-scroll', 'Nearest words, scrollable');
    this.nothing = errorLine('meaning-nothing');
    lab.append(this.nothing, this.scroll);
    this.shown = null; // the analysis listed
    this.first = 0; // its page's first row
    this.found = new Map(); // row → [own, mixed] of the analysis shown
    this.run = null; // the fill under way: a newer one stops it
    this.focus = null; // the focused word
    this.revealed = null; // the focused word the table was last scrolled to: another change (the threshold, the theme) leaves the reader's scroll alone
    // The numbers of the tab: every word's context vector, as CSV or JSON.
    ctx.figures.set('meaning', {
      name: 'the context vectors',
      formats: ['csv', 'json'],
      why: 'its numbers are negative and positive, and the heatmap’s colours run from 0 up',
      visible: () => Boolean(this.shown?.data) && !lab.hidden && ctx.shows('lab', ctx.store.get()),
      figure: () => (this.shown?.data ? contextFigure(this.shown) : null),
    });
  }

  render(state, analysis) {
    if (analysis.pending) return;
    this.focus = state.focus;
    const page = pageStart(analysis.n, this.focus);
    if (analysis === this.shown && page === this.first) {
      this.markFocus(this.focus !== this.revealed);
      if (!this.run && analysis.n > MAX_ROWS) this.done(analysis);
      return;
    }
    if (analysis !== this.shown) this.found = new Map();
    this.shown = analysis; // a search still running for an older sentence or page stops
    this.first = page;
    if (showNothing(this.nothing, [this.scroll], analysis)) {
      this.run = null;
      return;
    }
    this.fill(analysis).catch((error) => {
      if (this.shown !== analysis) return;
      this.body.replaceChildren();
      putText(this.caption, `The nearest words could not be found: ${error.message}.`);
      this.table.removeAttribute('aria-busy');
    });
  }

  /** Lists the rows of the page from `first`, found a slice of searches at a time (rows found before at once). */
  async fill(analysis) {
    const me = (this.run = {});
    const { labels, dim: d, n } = analysis;
    const { body, ctx, first } = this;
    const last = Math.min(n, first + MAX_ROWS);
    this.table.setAttribute('aria-busy', 'true');
    attr(this.table, 'aria-rowcount', n > MAX_ROWS ? String(n + 1) : null);
    putText(this.caption, 'Finding the nearest words…');
    while (body.rows.length > last - first) body.lastElementChild.remove();
    for (const tr of body.rows) tr.classList.add('stale');
    const pause = taskPauses(SLICE_MS);
    for (let i = first; i < last; i++) {
      if (!this.found.has(i)) {
        if (await pause() && this.run !== me) return;
        const pair = await Promise.all([
          ctx.engine.nearest(analysis.vectors.subarray(i * d, (i + 1) * d), NEAREST),
          ctx.engine.nearest(analysis.contextOf(i), NEAREST),
        ]);
        if (this.run !== me) return;
        this.found.set(i, pair);
      }
      this.putRow(i - first, i, labels, this.found.get(i), Boolean(analysis.fullyMasked?.[i]));
      // Marked as soon as it is found; scrolled to once the rows above and below it are in.
      if (i === this.focus) this.markFocus(false);
    }
    this.run = null;
    this.done(analysis);
    this.markFocus();
  }

  /**
   * Writes row `i` of the text at line `line` of the table: the word (its
   * place when the text repeats it), then its two lists; `masked`: every key
   * of the row is masked, and its context vector is zero (near no word).
   */
  putRow(line, i, labels, [own, mixed], masked) {
    let tr = this.body.rows[line];
    if (!tr) {
      tr = el('tr');
      const th = el('th');
      th.scope = 'row';
      tr.append(th, el('td', null, 'words own'), el('td', null, 'words mixed'));
      this.body.append(tr);
    }
    attr(tr, 'aria-rowindex', String(i + 2));
    tr.dataset.row = String(i);
    putText(tr.cells[0], labels[i]);
    attr(tr.cells[0], 'data-place', repeatsOf(labels).has(labels[i]) ? String(i + 1) : null);
    putText(tr.cells[1], list(own));
    putText(tr.cells[2], masked ? 'none: every key is masked, so its context vector is zero' : list(mixed));
    tr.classList.remove('stale');
  }

  /** Marks the focused word's row and, with `reveal`, scrolls the table to it (the table's box only, never the page). */
  markFocus(reveal = true) {
    const { focus, scroll, table } = this;
    let row = null;
    for (const tr of this.body.rows) {
      const focused = focus !== null && tr.dataset.row === String(focus);
      tr.classList.toggle('picked', focused);
      attr(tr, 'aria-current', focused ? 'true' : null);
      if (focused) row = tr;
    }
    if (!row || !reveal || this.lab.hidden) return;
    this.revealed = focus;
    this.ctx.afterPaint(() => {
      if (!row.isConnected) return;
      const top = row.offsetTop - (table.tHead?.offsetHeight ?? 0);
      if (top < scroll.scrollTop || row.offsetTop + row.offsetHeight > scroll.scrollTop + scroll.clientHeight) scroll.scrollTop = top;
    });
  }

  /** The caption of the rows found: what was searched, and which words of a long text are listed. */
  done(analysis) {
    const last = Math.min(analysis.n, this.first + MAX_ROWS);
    putText(this.caption, `Nearest of the ${grouped(nearestSearched(this.ctx, analysis))} most frequent vocabulary words by cosine similarity, with the similarity${pageText(analysis.n, this.first, last, this.focus)}`);
    this.table.removeAttribute('aria-busy');
  }
}

/** Which words of a long text the table lists, for its caption ('' when it lists them all). */
function pageText(n, first, last, focus) {
  if (n <= MAX_ROWS) return '';
  const span = `words ${grouped(first + 1)}–${grouped(last)} of ${grouped(n)}`;
  return focus !== null && focus < n ? `; ${span}, the page of the focused word` : `; ${span}: focus a word to list its page of ${MAX_ROWS}`;
}
