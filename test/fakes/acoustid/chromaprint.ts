/**
 * Chromaprint's compressed fingerprint (what fpcalc prints and AcoustID receives), read back into
 * its 32-bit sub-fingerprints so the fake can compare two fingerprints by their bits.
 *
 * Layout (URL-safe base64 without padding): one byte naming the algorithm, the number of
 * sub-fingerprints as a 24-bit big-endian integer, then for each sub-fingerprint (XORed with the one
 * before it) the gaps between its set bits as 3-bit values ending with a 0; a gap of 7 or more is
 * written as 7 and its remainder follows, as 5-bit values, after the 3-bit stream. Both streams are
 * packed least significant bit first.
 */

export interface DecodedFingerprint {
  algorithm: number;
  values: Uint32Array;
}

export class FingerprintError extends Error {}

function readBits(bytes: Uint8Array, startByte: number, width: number, count: number): { values: number[]; bytesUsed: number } {
  const values: number[] = [];
  const limit = (bytes.length - startByte) * 8;
  for (let i = 0; i < count; i++) {
    const first = i * width;
    if (first + width > limit) throw new FingerprintError('fingerprint data ends early');
    let v = 0;
    for (let b = 0; b < width; b++) {
      const bit = first + b;
      v |= ((bytes[startByte + (bit >> 3)]! >> (bit & 7)) & 1) << b;
    }
    values.push(v);
  }
  return { values, bytesUsed: Math.ceil((count * width) / 8) };
}

export function decodeFingerprint(text: string): DecodedFingerprint {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw new FingerprintError('not URL-safe base64');
  const bytes = new Uint8Array(Buffer.from(text, 'base64url'));
  if (bytes.length < 4) throw new FingerprintError('too short');
  const algorithm = bytes[0]!;
  const count = (bytes[1]! << 16) | (bytes[2]! << 8) | bytes[3]!;
  if (count === 0) throw new FingerprintError('no sub-fingerprints');
  // The 3-bit stream: read until `count` terminating zeros have been seen.
  const normal: number[] = [];
  let zeros = 0;
  const limit = (bytes.length - 4) * 8;
  for (let bit = 0; zeros < count; bit += 3) {
    if (bit + 3 > limit) throw new FingerprintError('fingerprint data ends early');
    let v = 0;
    for (let b = 0; b < 3; b++) v |= ((bytes[4 + ((bit + b) >> 3)]! >> ((bit + b) & 7)) & 1) << b;
    normal.push(v);
    if (v === 0) zeros++;
  }
  const exceptionsAt = 4 + Math.ceil((normal.length * 3) / 8);
  const wanted = normal.filter((v) => v === 7).length;
  const exceptions = readBits(bytes, exceptionsAt, 5, wanted).values;
  let e = 0;
  const values = new Uint32Array(count);
  let previous = 0;
  let current = 0;
  let lastBit = 0;
  let index = 0;
  for (const raw of normal) {
    const gap = raw === 7 ? 7 + exceptions[e++]! : raw;
    if (gap === 0) {
      previous = (current ^ previous) >>> 0;
      values[index++] = previous;
      current = 0;
      lastBit = 0;
      continue;
    }
    lastBit += gap;
    if (lastBit > 32) throw new FingerprintError('bit position out of range');
    current = (current | (1 << (lastBit - 1))) >>> 0;
  }
  return { algorithm, values };
}

const popcount = (x: number) => {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
};

/**
 * How alike two fingerprints are, 0–1: the share of equal bits over their overlap at the best
 * alignment (offsets up to `maxShift` sub-fingerprints, about 0.12 s each). Unrelated audio comes
 * out near 0.5; the same recording encoded differently near 1.
 */
export function fingerprintSimilarity(a: Uint32Array, b: Uint32Array, maxShift = 16): number {
  let best = 0;
  for (let shift = -maxShift; shift <= maxShift; shift++) {
    let same = 0;
    let total = 0;
    for (let i = Math.max(0, -shift); i < a.length && i + shift < b.length; i++) {
      same += 32 - popcount((a[i]! ^ b[i + shift]!) >>> 0);
      total += 32;
    }
    // An overlap of a few sub-fingerprints proves nothing.
    if (total >= 32 * Math.min(a.length, b.length, 20) && total > 0) best = Math.max(best, same / total);
  }
  return best;
}
