// The sentence's weights as a real table, `<table id="weights">` (a
// WeightsTable: windowed past 16 tokens, the focused row always in it), and
// the note above it that says how to reach the rows of a long text.

import { SLICED_ABOVE } from '../analysis.js';
import { attr } from '../dom.js';
import { grouped } from '../text.js';
import { WeightsTable } from '../weights-table.js';

export function mountTable(ctx) {
  const table = document.getElementById('weights');
  if (!table) return { update() {} };
  const weights = new WeightsTable(ctx, table, {
    note: document.getElementById('weights-note'),
    longNote: (rows) => `${grouped(rows)} rows: scroll the table, or focus a token, to bring its row; Download CSV has them all.`,
  });
  // The data of a long analysis waiting for its frame (the table is
  // aria-busy meanwhile): a callback whose data is no longer the one wanted
  // draws nothing.
  let wanted = null;
  const want = (data) => {
    wanted = data;
    attr(table, 'aria-busy', data !== null);
  };
  return {
    update(state, analysis) {
      if (analysis.pending) return;
      want(null);
      if (analysis.error || !analysis.data) {
        weights.clear();
      } else if (analysis.n > SLICED_ABOVE && analysis.data !== weights.data && !sameSize(analysis.data, weights.data)) {
        // A long text of a new length: the table (a thousand header cells
        // to lay out at 1,024 tokens) is drawn in the task after the second
        // frame from here, so that no frame is a long task. The first frame
        // shows the heatmap, which pushes the table's section down (off the
        // screen, for a long text); by the second the browser has seen
        // that, and the section's `content-visibility: auto` puts off laying
        // the table out until it is scrolled near. Drawn after the first
        // frame, it was laid out at once: 37 ms in one task after a paste.
        // Meanwhile it holds the previous analysis, and says so. A text of
        // the same length (or the same text with other options) leaves the
        // page's layout where it was, and is drawn at once, with the other
        // views: that frame then lays out a new header too (20-35 ms in
        // all at 1,024 tokens, traced), less than waiting for two frames.
        const { data } = analysis;
        want(data);
        requestAnimationFrame(() => ctx.afterPaint(() => {
          if (wanted !== data) return;
          want(null);
          weights.show(data, ctx.store.get().focus);
        }));
      } else {
        weights.show(analysis.data, state.focus);
      }
    },
  };
}

/** Whether two analyses' tables have as many rows and columns. */
function sameSize(a, b) {
  return Boolean(b) && a.cols === b.cols && a.rows === b.rows;
}
