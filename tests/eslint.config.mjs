// ESLint for the page's own JavaScript (www/js, the widget's attention-viz.js,
// the service worker; not www/pkg*, which wasm-bindgen writes): the
// recommended rules, and the size a function of www/ may reach (issue 10: no
// function over 100 lines). scripts/test runs it from the repository's root.
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    files: ['**/*.js'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: { ...globals.browser } },
    rules: {
      'max-lines-per-function': ['error', { max: 100 }],
      // `const { label, ...rest } = preset` leaves a key out on purpose.
      'no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    files: ['**/*-worker.js'],
    languageOptions: { globals: { ...globals.worker } },
  },
  {
    files: ['**/sw.js'],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
];
