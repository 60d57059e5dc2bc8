import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runTool } from './toolThread.js';

/**
 * Chromaprint fingerprints (what AcoustID identifies audio by), computed by ffmpeg's `chromaprint`
 * muxer (Debian's ffmpeg has it; no other tool to install) on the tool thread, which runs it at
 * background priority (TONEARM_BACKGROUND_NICE). The first 120 s are read, as fpcalc does; the
 * output is the compressed, URL-safe base64 form AcoustID's lookup takes.
 */

export type ChromaprintResult = { fingerprint: string } | { unavailable: string };

const SECONDS = 120;

export async function chromaprintOf(ffmpeg: string | null, file: string, signal?: AbortSignal): Promise<ChromaprintResult> {
  if (!ffmpeg) return { unavailable: 'ffmpeg was not found (FFMPEG_PATH or PATH), so no fingerprint could be computed' };
  const out = path.join(os.tmpdir(), `tonearm-chromaprint-${process.pid}-${randomUUID()}.txt`);
  try {
    const r = await runTool(
      ffmpeg,
      ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-t', String(SECONDS), '-i', file, '-vn', '-f', 'chromaprint', '-fp_format', 'base64', out],
      signal,
    );
    if (r.startError) return { unavailable: `ffmpeg could not start (${r.startError})` };
    if (r.code !== 0) {
      if (/chromaprint/i.test(r.stderr) && /(not a suitable output format|Unknown|not found)/i.test(r.stderr))
        return { unavailable: 'this ffmpeg has no chromaprint muxer (Debian\'s ffmpeg has one)' };
      return { unavailable: `ffmpeg could not fingerprint the file (exit ${r.code}: ${r.stderr.trim().split('\n').at(-1) ?? ''})` };
    }
    const fingerprint = (await fs.readFile(out, 'utf8')).trim();
    if (!/^[A-Za-z0-9_-]{8,}$/.test(fingerprint)) return { unavailable: 'the file is too short or too quiet to fingerprint' };
    return { fingerprint };
  } finally {
    await fs.rm(out, { force: true });
  }
}
