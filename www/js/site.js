// The URL of one of the site's own files (the page's data, styles, workers),
// from any module. Modules are written into js/ as they are or bundled
// (scripts/bundle.mjs writes every bundle into js/), so this module's URL is
// always a file of js/, wherever its code ends up; a module of js/views/
// resolving against its own URL would point one folder too deep once bundled.
export const siteFile = (file) => new URL(`../${file}`, import.meta.url);
