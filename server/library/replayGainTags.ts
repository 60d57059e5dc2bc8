import fs from 'node:fs';
import path from 'node:path';
import { replayGainTagText, type ReplayGain } from './replayGain.js';
import { readTagsOffThread, writeId3OffThread } from './tagThread.js';
import { runTool } from './toolThread.js';

/**
 * Writes ReplayGain values into a library file's tags (only when the administrator turned on
 * "write ReplayGain tags"): a tagged copy is made beside the file (MP3: node-id3 on the tag thread;
 * FLAC, Ogg Vorbis, Opus: ffmpeg `-c copy` on the tool thread, the audio untouched), read back to
 * check the values are there and the length unchanged, flushed, and renamed over the file, so the
 * file is never half-written. Formats whose ReplayGain fields ffmpeg cannot write (MP4, WAV...) are
 * left alone.
 */

const FFMPEG_MUXER: Record<string, string> = { flac: 'flac', ogg: 'ogg', oga: 'ogg', opus: 'opus' };

export function canWriteReplayGain(file: string): boolean {
  const ext = path.extname(file).slice(1).toLowerCase();
  return ext === 'mp3' || ext in FFMPEG_MUXER;
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
      if (!ffmpeg) throw new Error('ffmpeg is needed to write ReplayGain tags into this format');
      const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', file, '-map', '0', '-c', 'copy'];
      for (const [k, v] of values) args.push('-metadata', `${k}=${v}`);
      args.push('-f', FFMPEG_MUXER[ext]!, '-y', tmp);
      const { code, stderr, startError } = await runTool(ffmpeg, args, signal);
      if (startError || code !== 0) throw new Error(startError ?? (stderr.trim() || `ffmpeg exited with code ${code}`));
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
