/**
 * The fakes of the downloads benchmark (bench/downloads.ts): a slskd fake whose peers share
 * BENCH_DOWNLOADS_JOBS distinct tracks of about 1 MB each, answering every request 20 ms late.
 * Run as its own process (`node --import tsx bench/downloadsFakes.ts`), it prints one JSON line
 * `{url, apiKey, downloadsDir}` and serves until its stdin closes or it is sent SIGTERM, so the
 * benchmark measures only the server's event loop; `startDownloadsFakes` runs it in-process instead.
 */
import { startSlskdFake, type FakeSlskdUser, type SlskdFake } from '../test/fakes/slskd/index.js';

/** 64 kbit/s for 128 s: about 1 MB of real mp3 audio a file. */
export const TRACK_SECONDS = 128;
export const LATENCY_MS = 20;
const PEERS = 4;
const TRACKS_PER_ALBUM = 10;

export interface BenchTrack {
  artistName: string;
  albumName: string;
  trackName: string;
  trackNumber: number;
  year: number;
}

/** Two letters for a number (0 → "ba"), so names share no digits a search could confuse. */
const letters = (n: number) => String.fromCharCode(98 + Math.floor(n / 24) % 24) + String.fromCharCode(97 + (n % 24));

/** `count` distinct tracks: 20 a performer, 10 an album. */
export function benchTracks(count: number): BenchTrack[] {
  return Array.from({ length: count }, (_, i) => {
    const albumIndex = Math.floor(i / TRACKS_PER_ALBUM);
    return {
      artistName: `Bench ${letters(Math.floor(albumIndex / 2))} Ensemble`,
      albumName: `Record ${letters(albumIndex)}`,
      trackName: `Song ${String(i).padStart(5, '0')}`,
      trackNumber: (i % TRACKS_PER_ALBUM) + 1,
      year: 2000 + (albumIndex % 25),
    };
  });
}

/** A few peers; every track is shared by two of them (as `Music\Artist\Artist - Album (Year)\NN - Title.mp3`). */
export function benchPeers(tracks: BenchTrack[]): FakeSlskdUser[] {
  const peers: FakeSlskdUser[] = Array.from({ length: PEERS }, (_, p) => ({
    username: `benchpeer${p}`,
    delayMs: p * 3,
    uploadSpeed: 5_000_000 - p * 500_000,
    queueLength: p,
    hasFreeUploadSlot: true,
    files: [],
  }));
  tracks.forEach((t, i) => {
    for (const p of [i % PEERS, (i + 1) % PEERS]) {
      peers[p]!.files.push({
        filename: `Music\\${t.artistName}\\${t.artistName} - ${t.albumName} (${t.year})\\${String(t.trackNumber).padStart(2, '0')} - ${t.trackName}.mp3`,
        bitRate: 64,
        length: TRACK_SECONDS,
        tags: { artist: t.artistName, albumArtist: t.artistName, album: t.albumName, title: t.trackName, track: t.trackNumber, date: String(t.year) },
      });
    }
  });
  return peers;
}

export interface BenchFakes {
  url: string;
  apiKey: string;
  downloadsDir: string;
  close(): Promise<void>;
}

/** Starts the slskd fake in this process. */
export async function startDownloadsFakes(count: number, downloadsDir?: string): Promise<BenchFakes & { fake: SlskdFake }> {
  const fake = await startSlskdFake({
    ...(downloadsDir && { downloadsDir }),
    users: benchPeers(benchTracks(count)),
    templateSeconds: TRACK_SECONDS,
    // Searches end as soon as the first poll can see them; a 1 MB transfer takes 200 ms.
    searchMs: LATENCY_MS,
    queueMs: LATENCY_MS,
    transferMs: 200,
    // Above the worker's highest concurrency (8): one search a job at a time, never a 429.
    maxConcurrentSearches: 16,
  });
  fake.faults.delayMs = LATENCY_MS;
  return { url: fake.url, apiKey: fake.apiKey, downloadsDir: fake.downloadsDir, fake, close: () => fake.close() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const fakes = await startDownloadsFakes(Number(process.env.BENCH_DOWNLOADS_JOBS ?? 1000), process.env.BENCH_FAKES_DIR || undefined);
  const stop = () => void fakes.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.stdin.on('end', stop).on('close', stop).resume();
  process.stdout.write(`${JSON.stringify({ url: fakes.url, apiKey: fakes.apiKey, downloadsDir: fakes.downloadsDir })}\n`);
}
