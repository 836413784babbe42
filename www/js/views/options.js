// The options of the attention: scaling, the self mask, the causal mask and
// the temperature (a logarithmic slider from 0.001 to 1000); and of the
// pictures: the colour palette and the theme. On a phone they start folded
// (boot.js) under a summary that names those a link changed.

import { attr, put } from '../dom.js';
import { changedOptions, formatTemperature, temperatureAt } from '../state.js';

export function mountOptions({ store }) {
  const boxes = { scale: 'opt-scale', self: 'opt-self', causal: 'opt-causal' };
  const slider = document.getElementById('opt-temperature');
  const selects = { palette: document.getElementById('opt-palette'), theme: document.getElementById('opt-theme') };
  for (const [key, select] of Object.entries(selects)) select?.addEventListener('change', () => store.update({ [key]: select.value }, 'push'));
  const shown = document.getElementById('temperature-value');
  const summary = document.getElementById('settings-summary');
  for (const [key, id] of Object.entries(boxes)) {
    const box = document.getElementById(id);
    boxes[key] = box;
    box?.addEventListener('change', () => store.update({ [key]: box.checked }, 'push'));
  }
  slider?.addEventListener('input', () => {
    store.update({ temperature: temperatureAt(Number(slider.value)) }, 'push', 'temperature');
  });
  return {
    update(state) {
      for (const key of ['scale', 'self', 'causal']) put(boxes[key], 'checked', state[key]);
      if (slider) {
        const position = Math.log10(state.temperature);
        if (Math.abs(Number(slider.value) - position) > 0.005) slider.value = String(position);
        // The slider's own value is the logarithm ("0" for T = 1): a screen reader says the temperature instead.
        attr(slider, 'aria-valuetext', `temperature ${formatTemperature(state.temperature)}`);
      }
      put(shown, 'textContent', formatTemperature(state.temperature));
      for (const [key, select] of Object.entries(selects)) put(select, 'value', state[key]);
      const changed = changedOptions(state);
      put(summary, 'textContent', changed.length ? `Options: ${changed.join(', ')}` : 'Options');
    },
  };
}
