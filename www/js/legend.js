// A small colour legend in the DOM, for grids of thumbnails that share one
// scale (the heads of the multi-head view and of the trained model): the
// gradient from 0 to the largest weight, labelled at both ends.

import { el } from './dom.js';

/** A legend of `table` (256 r, g, b triples) from 0 to `max`, with a caption. */
export function legend(table, max, caption = 'weight') {
  const box = el('div', null, 'legend');
  box.setAttribute('role', 'img');
  box.setAttribute('aria-label', `Colour scale: from 0 (darkest) to ${max.toFixed(2)} (brightest); ${caption}`);
  const strip = Object.assign(el('canvas'), { width: 256, height: 1 });
  const image = new ImageData(256, 1);
  for (let t = 0; t < 256; t++) image.data.set([table[t * 3], table[t * 3 + 1], table[t * 3 + 2], 255], t * 4);
  strip.getContext('2d').putImageData(image, 0, 0);
  box.append(el('span', '0'), strip, el('span', max.toFixed(2)), el('small', caption, 'muted'));
  return box;
}
