// Entry point of the full page.
import { start } from './app.js';

start({ mode: 'full' }).catch((error) => window.attentionExplorerFailed?.(error));
