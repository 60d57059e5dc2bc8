import fs from 'node:fs';
import path from 'node:path';

export interface LyricsLine {
  startMs?: number;
  text: string;
}

export interface StructuredLyrics {
  synced: boolean;
  lang: string;
  offsetMs: number;
  displayArtist?: string;
  displayTitle?: string;
  lines: LyricsLine[];
}

const TIME = /\[(\d{1,3}):(\d{1,2})(?:[.:](\d{1,3}))?\]/g;
const TAG = /^\[(ar|ti|al|offset|la|lang|length|by|re|ve|au):(.*)\]\s*$/i;

/** Parses LRC text (or plain text, as unsynced lines). */
export function parseLyrics(text: string): StructuredLyrics {
  const result: StructuredLyrics = { synced: false, lang: 'und', offsetMs: 0, lines: [] };
  const timed: LyricsLine[] = [];
  const plain: LyricsLine[] = [];
  for (const raw of text.replace(/^\ufeff/, '').split(/\r?\n/)) {
    const line = raw.trim();
    const tag = TAG.exec(line);
    if (tag) {
      const key = tag[1]!.toLowerCase();
      const value = tag[2]!.trim();
      if (key === 'offset') result.offsetMs = Number(value) || 0;
      else if (key === 'ar' && value) result.displayArtist = value;
      else if (key === 'ti' && value) result.displayTitle = value;
      else if ((key === 'la' || key === 'lang') && value) result.lang = value;
      continue;
    }
    const stamps: number[] = [];
    TIME.lastIndex = 0;
    let m: RegExpExecArray | null;
    let rest = line;
    while ((m = TIME.exec(line)) !== null) {
      const frac = m[3] ? Number(m[3].padEnd(3, '0').slice(0, 3)) : 0;
      stamps.push(Number(m[1]) * 60_000 + Number(m[2]) * 1000 + frac);
      rest = line.slice(m.index + m[0].length);
    }
    if (stamps.length > 0) {
      for (const startMs of stamps) timed.push({ startMs, text: rest.trim() });
    } else if (line !== '' || plain.length > 0) {
      plain.push({ text: line });
    }
  }
  if (timed.length > 0) {
    result.synced = true;
    result.lines = timed.sort((a, b) => a.startMs! - b.startMs!);
  } else {
    while (plain.length > 0 && plain[plain.length - 1]!.text === '') plain.pop();
    result.lines = plain;
  }
  return result;
}

/**
 * Lyrics of a song: a sidecar .lrc (or .txt) beside the audio file first, then the embedded tag.
 * `servable` gives the real path to read of a sidecar, or null when it leads outside the library.
 */
export function lyricsOf(
  audioPath: string | null,
  embedded: string | null,
  servable: (file: string) => string | null,
): StructuredLyrics | null {
  if (audioPath) {
    const base = audioPath.slice(0, audioPath.length - path.extname(audioPath).length);
    for (const ext of ['.lrc', '.LRC', '.txt']) {
      try {
        const real = servable(base + ext);
        if (!real) continue;
        const text = fs.readFileSync(real, 'utf8');
        if (text.trim()) return parseLyrics(text);
      } catch {
        // no sidecar with this extension
      }
    }
  }
  if (embedded && embedded.trim()) return parseLyrics(embedded);
  return null;
}

export function plainText(l: StructuredLyrics): string {
  return l.lines.map((x) => x.text).join('\n');
}
