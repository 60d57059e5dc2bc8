import { copyFlacWithComments } from './flacTags.js';
import { runTool } from './toolThread.js';

/**
 * A copy of an audio file (not MP3: node-id3 writes those) with tags set, the audio untouched: FLAC
 * in-process (flacTags.ts), the other formats by ffmpeg `-c copy` on the tool thread. Downloads,
 * ReplayGain tags and identified files are written through it; each caller says which formats it
 * writes (ffmpeg's muxer is named by the extension).
 */

/** ffmpeg's muxer per extension where its name is not the extension's. */
const MUXERS: Record<string, string> = { oga: 'ogg', m4a: 'ipod', aac: 'adts' };

/** Whether writing tags into a copy of a file with this extension (lower case, no dot) needs ffmpeg. */
export const needsFfmpeg = (ext: string) => ext !== 'flac';

/**
 * Writes `input` to `output` with `values` ([name, value] in ffmpeg's names: title, artist, album,
 * album_artist, track, disc, date, or a Vorbis-style key such as MUSICBRAINZ_TRACKID) set; a null or
 * empty value is left out. Rejects
 * with the writer's own words; a write error ffmpeg only logs (it may still exit 0 with a truncated
 * file) rejects too.
 */
export async function writeTaggedCopy(
  input: string,
  output: string,
  ext: string,
  values: [string, string | null][],
  ffmpeg: string | null,
  signal?: AbortSignal,
): Promise<void> {
  const meta = values.filter((v): v is [string, string] => !!v[1]);
  if (!needsFfmpeg(ext)) return copyFlacWithComments(input, output, meta, signal);
  if (!ffmpeg) throw new Error(`ffmpeg is needed to write tags into .${ext} files`);
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', input, '-map', '0', '-c', 'copy'];
  if (ext === 'm4a' || ext === 'mp4') args.push('-movflags', 'use_metadata_tags');
  for (const [k, v] of meta) args.push('-metadata', `${k}=${v}`);
  args.push('-f', MUXERS[ext] ?? ext, '-y', output);
  const { code, stderr, startError } = await runTool(ffmpeg, args, signal);
  if (startError) throw new Error(startError);
  if (code === 0 && !/No space left on device|Error writing|I\/O error|Read-only file system|Permission denied/i.test(stderr)) return;
  throw new Error(stderr.trim() || `ffmpeg exited with code ${code}`);
}
