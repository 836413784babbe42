// The URL of one of the site's own files (the page's data, styles, workers),
// from any module. Modules are written into js/ as they are or bundled
// (scripts/bundle.mjs writes every bundle into js/), so this module's URL is
// always a file of js/, wherever its code ends up; a module of js/views/
// resolving against its own URL would point one folder too deep once bundled.
export const siteFile = (file) => new URL(`../${file}`, import.meta.url);

/** The trained model's WebAssembly: its glue module and its binary (the model's worker loads them). */
export const MODEL_WASM_FILES = { glue: 'pkg-model/attention_model_wasm.js', wasm: 'pkg-model/attention_model_wasm_bg.wasm' };

/**
 * Files of the site fetched outside the service worker's reach that it
 * should keep (page.js names them to it once it is in control): the trained
 * model's WebAssembly, which its worker fetched before that worker was under
 * the service worker's control (a first visit by a link that opens the model).
 */
export const fetchedEarly = new Set();
