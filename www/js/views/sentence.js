// The sentence box and the examples menu. Typing recomputes once per frame
// however fast the keys come, as one history entry per typing session.

import { el, put } from '../dom.js';
import { MAX_SENTENCE_LENGTH } from '../state.js';
import { cut } from '../text.js';

const EXAMPLES_URL = new URL('../../examples.txt', import.meta.url);

export function mountSentence({ store }) {
  const box = document.getElementById('sentence');
  const examples = document.getElementById('examples');
  if (!box) return { update() {} };
  let frame = 0;
  box.addEventListener('input', () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      const sentence = cut(box.value, MAX_SENTENCE_LENGTH);
      if (sentence !== store.get().sentence) store.update({ sentence, focus: null, cell: null }, 'push', 'typing');
    });
  });
  examples?.addEventListener('change', () => {
    if (examples.value) store.update({ sentence: examples.value, focus: null, cell: null }, 'push');
  });
  // The menu fills in after the first heatmap, never before it.
  loadExamples().then((sentences) => {
    if (!examples || sentences.length === 0) return;
    const options = [el('option', 'Examples…')];
    options[0].value = '';
    for (const sentence of sentences) {
      const option = el('option', sentence);
      option.value = sentence;
      options.push(option);
    }
    examples.replaceChildren(...options);
    syncExample(store.get().sentence);
  });

  function syncExample(sentence) {
    if (!examples) return;
    const match = [...examples.options].find((o) => o.value === sentence);
    put(examples, 'value', match ? match.value : '');
  }

  return {
    update(state) {
      // The box keeps what is typed into it: it follows the state only when they differ in substance.
      if (cut(box.value, MAX_SENTENCE_LENGTH) !== state.sentence) box.value = state.sentence;
      syncExample(state.sentence);
    },
  };
}

async function loadExamples() {
  try {
    const response = await fetch(EXAMPLES_URL);
    if (!response.ok) return [];
    return (await response.text()).split('\n').map((line) => line.trim()).filter(Boolean);
  } catch {
    return [];
  }
}
