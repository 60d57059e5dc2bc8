import fs from 'node:fs';
import path from 'node:path';
import { TARGETS, TranscodeLimitError, TranscoderUnavailableError, isTargetFormat, type TargetFormat, type TranscodeJob } from '../../domain/subsonic/transcoding.js';
import { SENT, type RestCall } from '../context.js';
import { ErrorCode, SubsonicError, invalidParameter } from '../errors.js';
import { suffixOf } from '../serialize.js';
import { playableSong, sendFile } from './files.js';
import { podcastEpisodeFile } from './podcasts.js';

const MIN_KBPS = 32;
const MAX_KBPS = 320;
/** 100 days: longer than any recording. */
const MAX_OFFSET_SECONDS = 8_640_000;

export interface StreamDecision {
  transcode: { format: TargetFormat; kbps: number } | null;
}

/**
 * Raw bytes unless the client asks otherwise: `format` naming another codec, or `maxBitRate`
 * below the source's bit rate (then mp3 unless a format was named). `format=raw` always wins.
 */
export function decide(source: { suffix: string; kbps: number | null }, format: string | undefined, maxBitRate: number): StreamDecision {
  const f = format?.toLowerCase();
  if (f === 'raw') return { transcode: null };
  const limited = maxBitRate > 0 && (source.kbps === null || source.kbps > maxBitRate);
  const kbpsFor = (target: TargetFormat) =>
    Math.max(MIN_KBPS, Math.min(MAX_KBPS, maxBitRate > 0 ? Math.min(maxBitRate, TARGETS[target].defaultKbps * 2) : TARGETS[target].defaultKbps));
  if (f && f !== '') {
    const sameAsSource = f === source.suffix;
    if (sameAsSource && !limited) return { transcode: null };
    if (!isTargetFormat(f)) {
      if (sameAsSource) return { transcode: { format: 'mp3', kbps: kbpsFor('mp3') } };
      throw invalidParameter('format', `unsupported format ${f}; use raw, mp3, opus or aac`);
    }
    return { transcode: { format: f, kbps: kbpsFor(f) } };
  }
  if (limited) return { transcode: { format: 'mp3', kbps: kbpsFor('mp3') } };
  return { transcode: null };
}

/** What `stream` needs of a song or a downloaded podcast episode. */
interface Playable {
  path: string;
  mime: string;
  suffix: string;
  kbps: number | null;
  durationMs: number;
  /** Changes when the file does (transcode cache key). */
  version: string;
}

function playable(call: RestCall, raw: string): Playable {
  const episode = podcastEpisodeFile(call, raw);
  if (episode) {
    const stat = fs.statSync(episode.file, { throwIfNoEntry: false });
    return {
      path: episode.file,
      mime: episode.mime,
      suffix: path.extname(episode.file).slice(1).toLowerCase(),
      kbps: episode.bitrate ? Math.round(episode.bitrate / 1000) : null,
      durationMs: (episode.durationSeconds ?? 0) * 1000,
      version: `episode|${stat?.size ?? 0}|${stat?.mtimeMs ?? 0}`,
    };
  }
  const song = playableSong(call, raw);
  return {
    path: song.path,
    mime: song.mime ?? 'application/octet-stream',
    suffix: suffixOf(song),
    kbps: song.bitrate ? Math.round(song.bitrate / 1000) : null,
    durationMs: song.duration_ms || song.file_duration_ms || 0,
    version: `${song.file_id}|${song.size}|${song.mtime_ms}`,
  };
}

export async function stream(call: RestCall): Promise<typeof SENT> {
  const media = playable(call, call.params.required('id'));
  const maxBitRate = call.params.int('maxBitRate', 0, { min: 0 });
  // Past the end is an empty stream; the cap keeps the value one ffmpeg's -ss accepts.
  const timeOffset = call.params.int('timeOffset', 0, { min: 0, max: MAX_OFFSET_SECONDS });
  const { transcode } = decide({ suffix: media.suffix, kbps: media.kbps }, call.params.string('format'), maxBitRate);
  const durationMs = media.durationMs;
  if (!transcode) {
    return sendFile(call, media.path, media.mime, {
      ...(durationMs > 0 && { 'X-Content-Duration': (durationMs / 1000).toFixed(2) }),
    });
  }

  const transcoder = call.rc.transcoder;
  if (!transcoder.available)
    throw new SubsonicError(ErrorCode.generic, 'Transcoding is not available: ffmpeg was not found on this server; request format=raw for the original file');
  const job: TranscodeJob = {
    input: media.path,
    sourceVersion: media.version,
    format: transcode.format,
    kbps: transcode.kbps,
    offsetSeconds: timeOffset,
  };
  const target = TARGETS[transcode.format];
  const remainingSeconds = Math.max(0, durationMs / 1000 - timeOffset);
  const common = {
    'X-Content-Duration': remainingSeconds.toFixed(2),
    'X-Content-Type-Options': 'nosniff',
  };
  const cached = transcoder.cached(job);
  if (cached) return sendFile(call, cached, target.mime, common);

  const res = call.res;
  const estimate = call.params.bool('estimateContentLength', false) ? Math.ceil((remainingSeconds * transcode.kbps * 1000) / 8) : null;
  const sendHeaders = () => {
    res.status(200);
    res.setHeader('Content-Type', target.mime);
    res.setHeader('Accept-Ranges', 'none');
    res.setHeader('Cache-Control', 'no-cache');
    for (const [k, v] of Object.entries(common)) res.setHeader(k, v);
    if (estimate !== null) res.setHeader('Content-Length', String(estimate));
  };
  if (call.req.method === 'HEAD') {
    sendHeaders();
    res.end();
    return SENT;
  }

  // Headers wait for ffmpeg's first output: a file it cannot decode then gets a Subsonic error, not a cut connection.
  return new Promise((resolve, reject) => {
    let sent = 0;
    let started = false;
    let done = false;
    let handle: ReturnType<typeof transcoder.start> | undefined;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(SENT);
    };
    const start = () => {
      if (started) return;
      started = true;
      sendHeaders();
    };
    // With an estimated length the body must be exactly that long: cut the excess, pad a shortfall.
    const write = (chunk: Buffer): boolean => {
      start();
      if (estimate === null) {
        sent += chunk.length;
        return res.write(chunk);
      }
      const room = estimate - sent;
      if (room <= 0) return true;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      sent += part.length;
      return res.write(part);
    };
    try {
      handle = transcoder.start(
        job,
        (chunk) => write(chunk),
        (ok, detail) => {
          if (done) return;
          if (res.destroyed || res.writableEnded) return finish();
          if (!ok && !started) {
            done = true;
            call.rc.app.log.warn('transcode failed before any output', { file: media.path, format: transcode.format, detail });
            return reject(
              new SubsonicError(ErrorCode.generic, 'Transcoding failed: ffmpeg could not decode this file; request format=raw for the original file'),
            );
          }
          start();
          if (estimate !== null && sent < estimate) res.write(Buffer.alloc(estimate - sent));
          res.end();
          finish();
        },
      );
    } catch (err) {
      if (err instanceof TranscodeLimitError) {
        res.setHeader('Retry-After', '5');
        return reject(new SubsonicError(ErrorCode.generic, 'Too many transcodes in progress; try again shortly', 429));
      }
      if (err instanceof TranscoderUnavailableError) return reject(new SubsonicError(ErrorCode.generic, err.message));
      return reject(err);
    }
    res.on('drain', () => handle?.resume());
    // The client went away: stop ffmpeg at once (the partial output is not cached).
    res.on('close', () => {
      if (!res.writableFinished) handle?.stop();
      finish();
    });
  });
}
