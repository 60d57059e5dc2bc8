import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import NodeID3 from 'node-id3';
import { readFileTags } from './tags.js';
import { lowerThisThread } from '../priority.js';

/**
 * Worker side of tagThread.ts: reads one file's tags per `read` message (embedded pictures are
 * dropped, so only the facts cross back to the main thread) and writes ID3 frames into an MP3 per
 * `writeId3` message.
 */
// Tag work is background work: requests and streams on the main thread go first (priority.ts).
lowerThisThread();

export type TagThreadAsk = { op: 'read'; file: string } | { op: 'writeId3'; file: string; frames: NodeID3.Tags };
export type TagThreadRequest = TagThreadAsk & { id: number };

const reply = (id: number, body: Record<string, unknown>) => parentPort?.postMessage({ id, ...body });
const failure = (id: number, err: unknown) =>
  reply(id, { error: err instanceof Error ? err.message : String(err), code: (err as NodeJS.ErrnoException | undefined)?.code });

parentPort?.on('message', (m: TagThreadRequest) => {
  if (m.op === 'writeId3') {
    // Merges into the file's ID3v2 tag: the frames given replace theirs (text frames by id, TXXX by
    // description, UFID by owner); every other frame (pictures, comments, lyrics) is kept.
    // A Buffer crosses threads as a plain Uint8Array; node-id3 wants Buffers.
    const ufid = m.frames.uniqueFileIdentifier?.map((u) => ({ ...u, identifier: Buffer.from(u.identifier) }));
    void NodeID3.Promise.update({ ...m.frames, ...(ufid && { uniqueFileIdentifier: ufid }) }, m.file).then(
      () => reply(m.id, { ok: true }),
      (err: unknown) => failure(m.id, err),
    );
    return;
  }
  void readFileTags(m.file, path.dirname(m.file)).then(
    (tags) => reply(m.id, { tags: { ...tags, picture: null } }),
    (err: unknown) => failure(m.id, err),
  );
});
