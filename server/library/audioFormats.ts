import path from 'node:path';

/** Audio files the scanner indexes, by lower-case extension, with the Content-Type they stream as. */
export const AUDIO_TYPES: Record<string, string> = {
  '.mp3': 'audio/mpeg',
  '.flac': 'audio/flac',
  '.ogg': 'audio/ogg',
  '.oga': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.m4a': 'audio/mp4',
  '.m4b': 'audio/mp4',
  '.mp4': 'audio/mp4',
  '.aac': 'audio/aac',
  '.alac': 'audio/mp4',
  '.wav': 'audio/wav',
  '.aif': 'audio/aiff',
  '.aiff': 'audio/aiff',
  '.wma': 'audio/x-ms-wma',
  '.dsf': 'audio/x-dsf',
};

export function isAudioFile(name: string): boolean {
  return path.extname(name).toLowerCase() in AUDIO_TYPES;
}

export function audioMimeOf(name: string): string {
  return AUDIO_TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** Folder images used as album art when a file has no embedded picture. */
export const FOLDER_IMAGE = /^(cover|folder|front)\.(jpe?g|png|webp)$/i;

/** Writes the watcher ignores: artwork, .nfo and other sidecars, dotfiles, temp and partial files. */
export function isIgnoredChange(file: string): boolean {
  const base = path.basename(file);
  if (base.startsWith('.')) return true;
  if (/\.(jpe?g|png|gif|webp|bmp|nfo|txt|log|cue|m3u8?|nsp|sfv|tmp|temp|part|partial|crdownload|download|swp)$/i.test(base)) return true;
  if (base.endsWith('~')) return true;
  return false;
}
