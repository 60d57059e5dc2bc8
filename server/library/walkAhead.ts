import type { WalkedDirectory } from './walk.js';

/** A folder whose listing runs ahead of the scan reading it. */
export interface FolderListing {
  root: string;
  folder: string;
  failed: () => boolean;
  directories: AsyncGenerator<WalkedDirectory>;
  abandon: () => void;
}

/**
 * Lists folders ahead of the tag reads, starting at once (up to `maxFiles` files waiting), so the
 * number of files is known long before they are all read. `onFound` gets each folder's file count
 * as it is listed; `onDone` runs once the listing ends or is abandoned.
 */
export function walkAhead(
  source: AsyncGenerator<WalkedDirectory>,
  maxFiles: number,
  onFound: (files: number) => void,
  onDone: () => void,
): { directories: AsyncGenerator<WalkedDirectory>; abandon: () => void } {
  const ready: WalkedDirectory[] = [];
  let waiting = 0;
  let finished = false;
  let abandoned = false;
  let failure: unknown = null;
  let wakeReader: (() => void) | null = null;
  let wakeWalker: (() => void) | null = null;
  const wake = (which: 'reader' | 'walker') => {
    const fn = which === 'reader' ? wakeReader : wakeWalker;
    if (which === 'reader') wakeReader = null;
    else wakeWalker = null;
    fn?.();
  };
  const listing = (async () => {
    try {
      for await (const directory of source) {
        if (abandoned) break;
        ready.push(directory);
        waiting += directory.files.length;
        onFound(directory.files.length);
        wake('reader');
        while (waiting >= maxFiles && !abandoned) await new Promise<void>((resolve) => (wakeWalker = resolve));
      }
    } catch (err) {
      failure = err;
    } finally {
      finished = true;
      onDone();
      wake('reader');
    }
  })();
  const abandon = () => {
    abandoned = true;
    wake('walker');
  };
  async function* directories(): AsyncGenerator<WalkedDirectory> {
    try {
      for (;;) {
        const next = ready.shift();
        if (next) {
          waiting -= next.files.length;
          wake('walker');
          yield next;
        } else if (finished) break;
        else await new Promise<void>((resolve) => (wakeReader = resolve));
      }
      await listing;
      if (failure) throw failure;
    } finally {
      abandon();
    }
  }
  return { directories: directories(), abandon };
}
