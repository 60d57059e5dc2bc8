/**
 * Deterministic test data: a small seeded PRNG, MusicBrainz-looking UUIDs, and artist/album/track
 * names of which roughly one in five is in a non-Latin script or carries diacritics, so sorting,
 * searching and path handling meet real-world text.
 */

/** mulberry32: tiny, fast, good enough for test data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stable 32-bit hash, so a track's name can be derived from its album and position. */
export function hash32(...parts: Array<number | string>): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const s = String(part);
    for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0x2c, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A version-4 UUID as MusicBrainz prints them (lower-case, hyphenated). Built with join() so the
 * result is one flat string: 80,000 concatenation ropes would cost the seeded library ~100 MB.
 */
export function mbid(random: () => number): string {
  const word = () => Math.floor(random() * 0x100000000).toString(16).padStart(8, '0');
  const hex = word() + word() + word() + word();
  const variant = '89ab'[Math.floor(random() * 4)] ?? '8';
  return [hex.slice(0, 8), hex.slice(8, 12), '4' + hex.slice(13, 16), variant + hex.slice(17, 20), hex.slice(20, 32)].join('-');
}

const pick = <T>(list: readonly T[], random: () => number): T => list[Math.floor(random() * list.length)] as T;

const adjectives = [
  'Velvet', 'Northern', 'Hollow', 'Electric', 'Silent', 'Golden', 'Crimson', 'Paper', 'Distant', 'Wild',
  'Broken', 'Quiet', 'Neon', 'Lonesome', 'Midnight', 'Glass', 'Burning', 'Frozen', 'Secret', 'Restless',
];
const nouns = [
  'Harbors', 'Pines', 'Machines', 'Rivers', 'Satellites', 'Wolves', 'Gardens', 'Lanterns', 'Horses', 'Echoes',
  'Cathedrals', 'Tides', 'Ghosts', 'Mirrors', 'Sparrows', 'Engines', 'Islands', 'Signals', 'Valleys', 'Comets',
];
const firstNames = ['Ada', 'Jonas', 'Mireille', 'Tomás', 'Ingrid', 'Kofi', 'Léa', 'Rafael', 'Siobhán', 'Yusuf', 'Björk', 'Nina'];
const lastNames = ['Holm', 'Okafor', 'Delacroix', 'Núñez', 'Lindqvist', 'Marsh', 'Dvořák', 'Castell', 'Ó Briain', 'Weiß'];
const suffixes = ['', '', '', ' Orchestra', ' Quartet', ' & the Lights', ' Collective', ' Trio'];

/** Names in other scripts, as real libraries hold them. */
const foreignNames = [
  '坂本美雨', '東京事変', '椎名林檎', '宇多田ヒカル', '사우스 카니발', '잔나비', '혁오', 'Кино', 'Аквариум',
  'Мумий Тролль', 'Сплин', 'Ορφέας', 'Φοίβος', 'فيروز', 'مشروع ليلى', 'סטטיק', 'Sigur Rós', 'Mýrdalsjökull',
  'Þórunn Antonía', 'Ólafur Arnalds', 'Mötley Crüe', 'Björn Ulvæus', 'Zdeněk Liška', 'Ensemble Ça Va',
  '周杰倫', '五月天', '陳奕迅', 'ดา เอ็นโดรฟิน', 'Ἀρχαῖα', 'Ruído Rosa',
];
const foreignTitles = [
  '夜明け', '青い鳥', '다시 만나', '별빛', 'Белые ночи', 'Звезда', 'Ταξίδι', 'ليل', 'Ljósið', 'Ágúst',
  '月光', 'Sonho Azul', 'Été Indien', 'Frühling', 'Hvíla', '春の雨', 'Дорога', '바람의 노래',
];
const titleWords = [
  'Light', 'Night', 'Summer', 'Home', 'Fire', 'Water', 'Dream', 'Road', 'Heart', 'Winter', 'Shadow', 'City',
  'Morning', 'Ocean', 'Stone', 'Song', 'Gold', 'Rain', 'Sky', 'Letter', 'Harbor', 'Circle', 'Garden', 'Storm',
];
const titleShapes = [
  (a: string, b: string) => `${a} ${b}`,
  (a: string, b: string) => `The ${a} of ${b}`,
  (a: string) => a,
  (a: string, b: string) => `${a} & ${b}`,
  (a: string, b: string) => `After the ${a}, ${b}`,
  (a: string) => `${a} (Reprise)`,
  (a: string, b: string) => `${a}s in ${b}`,
];

export function artistName(random: () => number): { name: string; type: 'Group' | 'Person' } {
  const roll = random();
  if (roll < 0.2) return { name: pick(foreignNames, random), type: random() < 0.5 ? 'Group' : 'Person' };
  if (roll < 0.5) return { name: `${pick(firstNames, random)} ${pick(lastNames, random)}`, type: 'Person' };
  const the = random() < 0.4 ? 'The ' : '';
  return { name: `${the}${pick(adjectives, random)} ${pick(nouns, random)}${pick(suffixes, random)}`, type: 'Group' };
}

export function title(random: () => number): string {
  if (random() < 0.15) return pick(foreignTitles, random);
  return pick(titleShapes, random)(pick(titleWords, random), pick(titleWords, random));
}

/** The title of track `index` of an album whose titles were never stored: derived, not kept. */
export function derivedTrackTitle(albumSeed: number, index: number): string {
  return title(prng(hash32(albumSeed, index)));
}

/** A UUID derived from a number, for ids we do not store (recording and track MBIDs). */
export function derivedMbid(...parts: Array<number | string>): string {
  return mbid(prng(hash32(...parts)));
}

/** File names keep the characters the file system allows; Lidarr replaces the rest. */
export function safeFileName(name: string): string {
  return name.replace(/[\\/:*?"<>|]/g, '_').replace(/\s+$/g, '').replace(/^\.+/, '_');
}
