/**
 * What the parts of the direct MP3 reader (plainMp3.ts) share: how they read the file's bytes, how
 * they step aside, and byte-level helpers.
 */

/** Bytes of the file: `length` bytes at `offset`, or fewer at the end of the file. */
export type ReadBytes = (offset: number, length: number) => Uint8Array;

/** The reader steps aside: the file is not one it reproduces music-metadata's reading of. */
export class NotPlain extends Error {}

export function notPlain(why: string): never {
  throw new NotPlain(why);
}

export function latin1(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

/** The first `length` bytes as music-metadata's 7-bit ASCII decoding reads them. */
export function ascii(b: Uint8Array, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += String.fromCharCode(b[i]! & 0x7f);
  return s;
}

/** Whether `b` spells `text`, with or without the top bit of each byte (music-metadata reads some ids as 7-bit ASCII). */
export function spells(b: Uint8Array, text: string): boolean {
  if (b.length < text.length) return false;
  for (let i = 0; i < text.length; i++) if ((b[i]! & 0x7f) !== text.charCodeAt(i)) return false;
  return true;
}

/** An ID3v2 synchsafe integer (7 bits a byte) at `at`. */
export function synchsafe(b: Uint8Array, at: number): number {
  return ((b[at]! & 0x7f) << 21) | ((b[at + 1]! & 0x7f) << 14) | ((b[at + 2]! & 0x7f) << 7) | (b[at + 3]! & 0x7f);
}

/** A big-endian unsigned 32-bit integer at `at`. */
export function uint32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

/** Whether any of the 4 bytes at `at` has its top bit set (not a synchsafe integer). */
export function notSynchsafe(b: Uint8Array, at: number): boolean {
  return ((b[at]! | b[at + 1]! | b[at + 2]! | b[at + 3]!) & 0x80) !== 0;
}

/** Where the audio starts after an ID3v2 tag at the start of a file (header, synchsafe size, footer), or null when there is none. */
export function id3v2End(head: Uint8Array): number | null {
  if (head.length < 10 || head[0] !== 0x49 || head[1] !== 0x44 || head[2] !== 0x33) return null;
  const footer = head[5]! & 0x10 ? 10 : 0;
  return 10 + synchsafe(head, 6) + footer;
}
