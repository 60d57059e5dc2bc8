import { ImageCache, imageMimeOf } from './imageCache.js';
import { readTagsAndFingerprint, type FileTags } from './tags.js';

/** One file a scan reads: its path, the music folder it was found in, its size from the walk. */
export interface ScanReadInput {
  path: string;
  root: string;
  size: number;
}

/** An embedded picture, stored in the image cache already. */
export interface StoredPicture {
  key: string;
  mime: string;
  bytes: number;
}

/**
 * What a scan learns from one file: its tags (without the picture bytes), content fingerprint and
 * stored embedded picture; or why it is not indexable audio (readTagsAndFingerprint's rejection).
 */
export type ScanRead = { tags: FileTags; fingerprint: string; picture: StoredPicture | null } | { error: string };

/**
 * Reads one file for a scan: parse, fingerprint, and the embedded picture into the image cache (a
 * picture that cannot be stored is left out, as if the file had none). Plain data only, so the
 * scan's read thread (scanReadThread.ts) can answer it as well as the scan's own thread.
 */
export async function readForScan(file: ScanReadInput, images: ImageCache): Promise<ScanRead> {
  let read: Awaited<ReturnType<typeof readTagsAndFingerprint>>;
  try {
    read = await readTagsAndFingerprint(file.path, file.root, file.size);
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
  const bytes = read.tags.picture;
  let picture: StoredPicture | null = null;
  if (bytes) {
    try {
      picture = { key: images.store(bytes), mime: imageMimeOf(bytes), bytes: bytes.length };
    } catch {
      picture = null;
    }
  }
  read.tags.picture = null;
  return { tags: read.tags, fingerprint: read.fingerprint, picture };
}

/** Reads files one after the other on this thread. */
export async function readBatchHere(files: ScanReadInput[], images: ImageCache): Promise<ScanRead[]> {
  const out: ScanRead[] = [];
  for (const file of files) out.push(await readForScan(file, images));
  return out;
}
