// The Cross-attention tab: the sentence's words (queries) over another
// sentence's (keys and values), as a translation model's decoder looks at
// its source. Sentence B's words are fetched like the sentence's (page.js
// asks for both while this tab is open).

import { control, el, input, putField } from '../../dom.js';
import { tokensOf } from '../../analysis.js';
import { MatrixPanel } from '../../matrix-panel.js';
import { DEFAULT_SENTENCE_B, MAX_SENTENCE_B } from '../../teach-state.js';
import { attempt, errorLine, labFocus, labSteps, panelOptions, setTeach, showFailure, showNothing } from './common.js';
import { linkCheck } from '../../params.js';
import { counted, excerpt, quoted } from '../../text.js';

// Checked by the page when it fetches this module (engine.js sameBuild).
export const BUILT = 'unbuilt';

const EXAMPLE = { a: 'Where is the Eiffel Tower?', b: DEFAULT_SENTENCE_B };

export function mountCross(lab, ctx) {
  const { store } = ctx;
  lab.append(el('p', 'In cross-attention the queries come from one sentence (A, the sentence above) and the keys and values from another (B): a translation model’s decoder looks at the source sentence this way. Rows are A’s words, columns B’s. Self and causal masks do not apply across sentences.', 'note'));
  const b = input('textarea', 'cross-b', { rows: '2', maxlength: String(MAX_SENTENCE_B), spellcheck: 'false' });
  let frame = 0;
  b.addEventListener('input', () => {
    frame ||= requestAnimationFrame(() => {
      frame = 0;
      setTeach(store, { b: b.value, lf: 0, lc: null }, 'push', 'cross');
    });
  });
  const example = el('button', `Example: "${EXAMPLE.a}" over "${EXAMPLE.b}"`, 'small');
  example.type = 'button';
  example.id = 'cross-example';
  example.addEventListener('click', () => {
    const state = store.get();
    store.set({ ...state, sentence: EXAMPLE.a, focus: null, cell: null, teach: { ...state.teach, b: EXAMPLE.b, lf: 0, lc: null } }, 'push');
  });
  const error = errorLine();
  const nothing = errorLine('cross-nothing');
  lab.append(control('Sentence B (keys and values)', b), example, error, nothing);
  const panel = new MatrixPanel(el('div'), panelOptions(ctx, 'Cross-attention', 'cross-weights', {
    // Both sentences in the title of its download, each cut (a long A would leave no room for B).
    title: (state) => `A: ${excerpt(state.sentence, 60)} · B: ${excerpt(state.teach.b, 60)}`,
  }));
  const steps = el('div', null, 'explain lab-steps');
  lab.append(panel.root, steps);
  const checkLink = linkCheck(ctx);

  return {
    controls(state) {
      putField(b, state.teach.b, ctx.fromAddress);
    },
    render(state, analysis) {
      if (analysis.pending) return;
      // Nothing in sentence A: no panel at all. A mistake in B: its message, the last panel dimmed.
      if (showNothing(nothing, [panel.root, steps], analysis)) {
        showFailure(lab, error, null);
        return;
      }
      const teach = state.teach;
      const result = attempt(() => analysis.cross(teach.b));
      if (showFailure(lab, error, result.error)) return;
      const { raw, data } = result.value;
      const { focus, problems } = labFocus(ctx, teach, data.rows, data.cols);
      checkLink(problems);
      // Self and causal masks do not apply across sentences: the figure does not name them.
      // B's words without a vector are named, as the chips name A's.
      const missing = [...new Set(tokensOf(ctx.engine.explorer.tokenize(teach.b)).filter((t) => !t.known && !t.pending).map((t) => quoted(t.text)))];
      const left = missing.length ? ` Left out of B (no vector): ${missing.join(', ')}.` : '';
      panel.show(data, { focus, settings: { masks: false }, caption: `Rows: the ${counted(data.rows, 'word')} of A (queries). Columns: the ${counted(data.cols, 'word')} of B (keys and values).${left}` });
      labSteps(steps, ctx, raw, data, focus, teach.lc, state);
    },
  };
}
