import { vi } from 'vitest';

/**
 * The screen tests share a worker process (the dom project runs without isolation, so happy-dom, preact
 * and the other installed packages load once per worker), but each file starts from fresh modules:
 * its own page (test/renderer/dom.ts makes a new window), and the renderer's and the server's
 * modules evaluated anew, so no store, player or session of an earlier file reaches it.
 */
vi.resetModules();
