// The sentence's weights as a real table, `<table id="weights">` (a
// WeightsTable: windowed past 16 tokens, the focused row always in it), and
// the note above it that says how to reach the rows of a long text.

import { WeightsTable } from '../weights-table.js';

/** Beyond this many tokens a new analysis's table is drawn a frame after the other views. */
const LONG = 256;

export function mountTable(ctx) {
  const table = document.getElementById('weights');
  if (!table) return { update() {} };
  const weights = new WeightsTable(ctx, table, {
    note: document.getElementById('weights-note'),
    longNote: (rows) => `${rows} rows: scroll the table, or focus a token, to bring its row; Download CSV has them all.`,
  });
  // The data of a long analysis waiting for its frame: a callback whose data
  // is no longer the one wanted draws nothing.
  let wanted = null;
  return {
    update(state, analysis) {
      if (analysis.pending) return;
      wanted = null;
      table.removeAttribute('aria-busy');
      if (analysis.error || !analysis.data) {
        weights.clear();
      } else if (analysis.n > LONG && analysis.data !== weights.data) {
        // A new long analysis: the table (a thousand header cells to lay out
        // at 1,024 tokens) is drawn in the task after the frame that shows
        // the heatmap and the arrows, so that neither frame is a long task.
        // Meanwhile it holds the previous analysis, and says so.
        const { data } = analysis;
        wanted = data;
        table.setAttribute('aria-busy', 'true');
        requestAnimationFrame(() => setTimeout(() => {
          if (wanted !== data) return;
          wanted = null;
          table.removeAttribute('aria-busy');
          weights.show(data, ctx.store.get().focus);
        }, 0));
      } else {
        weights.show(analysis.data, state.focus);
      }
    },
  };
}
