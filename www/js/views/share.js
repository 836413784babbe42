// Share and export: the link (the address bar is the share link), the embed
// snippets, and the numbers and the picture of what is on screen.

import { copyText, download, el } from '../dom.js';
import { font } from '../paint.js';
import { formatHash, formatTemperature } from '../state.js';

function slug(text) {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'sentence';
}

/** Escapes text for an HTML attribute value in a snippet the user copies. */
export function attribute(text) {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The custom-element and iframe snippets that reproduce `state`. */
export function embedSnippet(state, base) {
  const attrs = [`sentence="${attribute(state.sentence)}"`];
  if (!state.self) attrs.push('no-self');
  if (state.causal) attrs.push('causal');
  if (!state.scale) attrs.push('no-scale');
  if (state.temperature !== 1) attrs.push(`temperature="${formatTemperature(state.temperature)}"`);
  if (state.focus !== null) attrs.push(`focus="${state.focus}"`);
  const iframe = new URL('embed.html', base).href + formatHash(state);
  return [
    `<script type="module" src="${new URL('attention-viz.js', base).href}"></script>`,
    `<attention-viz ${attrs.join(' ')}></attention-viz>`,
    '',
    '<!-- or, without a script: -->',
    `<iframe src="${attribute(iframe)}" title="Attention Explorer" width="100%" height="640" style="border:0" loading="lazy"></iframe>`,
  ].join('\n');
}

export function mountShare(ctx) {
  const { store } = ctx;
  const $ = (id) => document.getElementById(id);
  const status = $('share-status');
  const code = $('embed-code');
  const flash = (text) => {
    if (status) status.textContent = text;
  };
  let analysis = null;
  $('copy-link')?.addEventListener('click', async () => {
    const ok = await copyText(location.href);
    flash(ok ? 'Link copied: it opens this sentence, these options and this focus.' : `Copy this link: ${location.href}`);
  });
  $('copy-embed')?.addEventListener('click', async () => {
    const snippet = embedSnippet(store.get(), new URL('.', location.href));
    if (code) {
      code.value = snippet;
      code.hidden = false;
    }
    flash((await copyText(snippet)) ? 'Embed code copied.' : 'Copy the embed code below.');
  });
  $('export-csv')?.addEventListener('click', () => {
    if (!analysis) return;
    download(new Blob([analysis.csv()], { type: 'text/csv' }), `attention-${slug(store.get().sentence)}.csv`);
    flash('CSV downloaded.');
  });
  $('export-png')?.addEventListener('click', () => {
    if (!analysis) return;
    picture(store.get(), ctx.theme).toBlob((blob) => {
      if (blob) download(blob, `attention-${slug(store.get().sentence)}.png`);
      flash(blob ? 'PNG downloaded.' : 'The PNG could not be made.');
    }, 'image/png');
  });
  return {
    update(state, next) {
      if (!next.pending) analysis = next.error ? null : next;
    },
  };
}

/** Heatmap (base + overlay) and arrows side by side, titled, on the page colour. */
function picture(state, theme) {
  const heatmap = document.getElementById('heatmap');
  const overlay = document.getElementById('heatmap-overlay');
  const arrows = document.getElementById('arrows');
  const size = (canvas) => ({ width: parseFloat(canvas?.style.width) || 0, height: parseFloat(canvas?.style.height) || 0 });
  const heat = size(heatmap);
  const arrow = size(arrows);
  const ratio = window.devicePixelRatio || 1;
  const pad = 16;
  const title = 28;
  const width = pad * 3 + heat.width + arrow.width;
  const height = pad * 2 + title + Math.max(heat.height, arrow.height);
  const canvas = el('canvas');
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const ctx = canvas.getContext('2d');
  ctx.scale(ratio, ratio);
  ctx.fillStyle = theme.bg;
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = theme.fg;
  ctx.font = font(theme, { size: 15, weight: 'bold' });
  ctx.textBaseline = 'top';
  ctx.fillText(state.sentence.slice(0, 120), pad, pad);
  ctx.drawImage(heatmap, pad, pad + title, heat.width, heat.height);
  ctx.drawImage(overlay, pad, pad + title, heat.width, heat.height);
  if (arrow.width) ctx.drawImage(arrows, pad * 2 + heat.width, pad + title, arrow.width, arrow.height);
  return canvas;
}
