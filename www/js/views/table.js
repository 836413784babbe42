// The sentence's weights as a real table, `<table id="weights">` (a
// WeightsTable: windowed past 16 tokens, the focused row always in it), and
// the note above it that says how to reach the rows of a long text.

import { WeightsTable } from '../weights-table.js';

export function mountTable(ctx) {
  const table = document.getElementById('weights');
  if (!table) return { update() {} };
  const weights = new WeightsTable(ctx, table, {
    note: document.getElementById('weights-note'),
    longNote: (rows) => `${rows} rows: scroll the table, or focus a token, to bring its row; Download CSV has them all.`,
  });
  return {
    update(state, analysis) {
      if (analysis.pending) return;
      if (analysis.error || !analysis.data) weights.clear();
      else weights.show(analysis.data, state.focus);
    },
  };
}
