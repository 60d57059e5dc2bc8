import fs from 'node:fs';
import path from 'node:path';
import { replayGainTagText, type ReplayGain } from './replayGain.js';
import { readTagsOffThread, writeId3OffThread } from './tagThread.js';
import { needsFfmpeg, writeTaggedCopy } from './taggedCopy.js';

/**
 * Writes ReplayGain values into a library file's tags (only when the administrator turned on
 * "write ReplayGain tags"): a tagged copy is made beside the file (MP3: node-id3 on the tag thread;
 * FLAC, Ogg Vorbis, Opus: taggedCopy.ts, the audio untouched), read back to
 * check the values are there and the length unchanged, flushed, and renamed over the file, so the
 * file is never half-written. Formats whose ReplayGain fields ffmpeg cannot write (MP4, WAV...) are
 * left alone.
 */

/** The formats whose ReplayGain fields are written: ID3 TXXX frames, or Vorbis comments. */
const WRITTEN = new Set(['mp3', 'flac', 'ogg', 'oga', 'opus']);

export function canWriteReplayGain(file: string): boolean {
  return WRITTEN.has(path.extname(file).slice(1).toLowerCase());
}

export async function writeReplayGainTags(file: string, rg: ReplayGain, ffmpeg: string | null, signal?: AbortSignal): Promise<void> {
  const ext = path.extname(file).slice(1).toLowerCase();
  if (!canWriteReplayGain(file)) throw new Error(`ReplayGain tags are not written into .${ext} files`);
  const values = replayGainTagText(rg);
  if (values.length === 0) return;
  const before = await readTagsOffThread(file);
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.tonearm-rg.part`);
  try {
    fs.rmSync(tmp, { force: true });
    if (ext === 'mp3') {
      await fs.promises.copyFile(file, tmp);
      await writeId3OffThread(tmp, { userDefinedText: values.map(([description, value]) => ({ description, value })) });
    } else {
      if (needsFfmpeg(ext) && !ffmpeg) throw new Error('ffmpeg is needed to write ReplayGain tags into this format');
      await writeTaggedCopy(file, tmp, ext, values, ffmpeg, signal);
    }
    fs.chmodSync(tmp, fs.statSync(file).mode & 0o7777);
    const after = await readTagsOffThread(tmp);
    if (after.error || after.replayGain?.trackGain !== rg.trackGain || Math.abs(after.durationMs - before.durationMs) > 1000) {
      throw new Error('the tagged copy did not read back with the same values and length');
    }
    const handle = await fs.promises.open(tmp, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(tmp, file);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
