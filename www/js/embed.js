// Entry point of the embed page (embed.html): no page chrome, and it reports
// its height to the host page with postMessage.
import { start } from './app.js';

start({ mode: 'embed' }).catch((error) => window.attentionExplorerFailed?.(error));
