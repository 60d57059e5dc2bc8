import type { IAudioMetadata, IFormat, ITag } from 'music-metadata';
import { NotPlain, notPlain, notSynchsafe, spells, synchsafe, type ReadBytes } from './plainMp3Bytes.js';
import { readStream } from './plainMp3Stream.js';
import { noTag, readFrames, type Tag } from './plainMp3Tag.js';

/**
 * A direct reader for the commonest file a library holds: an MP3 with one ID3v2.3/2.4 tag in front,
 * MPEG audio frames, and nothing at the end. It answers exactly what music-metadata (11.x) answers
 * for such a file in the fields the scanner keeps (tags.ts `tagsOf`, replayGain.ts), at a small
 * fraction of its cost: music-metadata reads through a chain of asynchronous token reads, builds
 * every frame's value and maps each tag through its generic mapper, which made tag parsing the
 * largest share of a first scan (issue 25).
 *
 * "Exactly" is the rule. Each step (plainMp3Tag.ts for the tag, plainMp3Stream.ts for the audio frames) follows what music-metadata does with the same bytes,
 * including its quirks (which frames' values are split on "/" in ID3v2.3, that the year comes from
 * whichever of TYER and TDRC comes last, how the MPEG sync skips through a LAME header, how the CBR
 * length is counted). Anything outside what is reproduced here returns null, and the file is parsed
 * by music-metadata as before: other tag versions, unsynchronisation, extended headers, frame flags,
 * multiple values in a field the scanner keeps, numeric genre references, a second tag, ID3v1 or APE
 * tags at the end, a stream that needs re-syncing, a frame that music-metadata could fail on.
 * test/library/plain-mp3.test.ts compares both readers on a corpus of such files and of files just
 * outside the line.
 */

/** An ID3v1 or APE tag at the end (read by music-metadata after the stream; not reproduced here). */
function tailHasTags(bytes: ReadBytes, size: number): boolean {
  return spells(bytes(size - 128, 3), 'TAG') || spells(bytes(size - 32, 8), 'APETAGEX');
}

/**
 * music-metadata's result for a plain MP3 (see above) in the fields the scanner reads, or null when
 * the file is not one: then parse it with music-metadata.
 */
export function readPlainMp3(bytes: ReadBytes, size: number): IAudioMetadata | null {
  try {
    return read(bytes, size);
  } catch (err) {
    if (err instanceof NotPlain) return null;
    throw err;
  }
}

function read(bytes: ReadBytes, size: number): IAudioMetadata {
  if (size < 2048) notPlain('too small');
  if (tailHasTags(bytes, size)) notPlain('tag at the end');
  const head = bytes(0, 10);
  let tag: Tag = noTag();
  let audioStart = 0;
  if (spells(head, 'ID3')) {
    if (head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) notPlain('7-bit ID3 identifier');
    const major = head[3]!;
    if (major !== 3 && major !== 4) notPlain(`ID3v2.${major}`);
    if (head[5] !== 0) notPlain('tag header flags');
    if (notSynchsafe(head, 6)) notPlain('tag size not synchsafe');
    const tagSize = synchsafe(head, 6);
    if (10 + tagSize > size) notPlain('tag larger than the file');
    const data = bytes(10, tagSize);
    if (data.length < tagSize) notPlain('tag larger than the file');
    tag = readFrames(data, major);
    audioStart = 10 + tagSize;
    if (spells(bytes(audioStart, 3), 'ID3')) notPlain('second ID3v2 tag');
  }
  const format = readStream(bytes, audioStart, size);
  if (!(format.duration! > 0)) notPlain('no duration');
  const native: Record<string, ITag[]> = {};
  if (audioStart > 0 && tag.native.length > 0) native[`ID3v2.${head[3]}`] = tag.native;
  return { format: format as unknown as IFormat, native, common: tag.common as unknown as IAudioMetadata['common'], quality: { warnings: [] } };
}
