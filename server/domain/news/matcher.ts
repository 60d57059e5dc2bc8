/**
 * Which library artists a news article is about. Names are compared as whole words, ignoring case,
 * diacritics and punctuation ("Björk" finds "BJORK'S new album", "Sigur Rós" finds "sigur ros"),
 * never inside another word ("Muse" is not in "museum", "Low" not in "Lowell").
 *
 * Names that are ordinary words or very short ("Air", "Yes", "Low", "Train", "The The", "Live")
 * would match most of the news, so they count only when the publisher tagged the article with the
 * artist (an RSS/Atom category equal to the name). Placeholders ("Various Artists") never match.
 */

/** Lower case, no diacritics, `&` as "and", every run of other punctuation or space as one space. */
export function normalizeName(text: string): string {
  return ` ${text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/['’`]s\b/g, '')
    .replace(/['’`]/g, '')
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()} `.replace(/^ +| +$/g, ' ');
}

const tokensOf = (normalized: string) => normalized.trim().split(' ').filter(Boolean);

/** Ordinary English words that are also artist names; an artist called only by these is ambiguous. */
const COMMON_WORDS = new Set(
  `a about after again air all alive america an and angel angels animal animals any apple are as at away baby back bad band bear bears best big bird birds black blood blue body boy boys break bush but by california can chase chic child children city cold come common cream crystal dance dark day days dead death diamond do doors down dream dreams drive earth east eagles end eve every eyes face faith fall family fire fish five flash focus for forever free friends from fun game genesis ghost girl girls go gold good great green guide hands happy he heart heaven hell her here high his home hot house i if in is it journey just keane kiss lady last let life light like little live living london long love low made magic man me men mine money moon more mother move muse music my name new news night no nothing now of off oh on one only or other our out over paper people place play poison power queen rain real red right rock rose run sea see she shadow show side silence silver sky slow so solo someone something song soul sound space spirit star stars still stone storm story street sugar summer sun sweet take talk that the them then there they thing this those time to tonight too tool top tour train tree true truth two under up us visage wall war water way we west what when where white wild will wind wings with woman world yes yesterday you young your`.split(' '),
);

/** Artist entries that stand for no one in particular. */
const PLACEHOLDERS = new Set([' various artists ', ' various ', ' unknown artist ', ' unknown ', ' va ', ' soundtrack ', ' original soundtrack ', ' cast ', ' original cast ']);

export interface MatchableArtist {
  id: number;
  name: string;
}

export interface ArticleText {
  title: string;
  summary?: string | null;
  categories?: readonly string[];
}

export type NameStrength = 'never' | 'tagged' | 'text';

/** How an artist name may be matched: in the text, only through the publisher's tags, or never. */
export function nameStrength(name: string): NameStrength {
  const n = normalizeName(name);
  if (n.trim() === '' || PLACEHOLDERS.has(n)) return 'never';
  const tokens = tokensOf(n);
  const letters = tokens.join('');
  if (letters.length < 2) return 'never';
  const meaningful = tokens.filter((t) => t !== 'the');
  if (meaningful.length === 0) return 'tagged'; // "The The"
  if (meaningful.every((t) => COMMON_WORDS.has(t))) return 'tagged';
  // Three letters or fewer (without digits: "U2" and "MF DOOM"-like names stay), e.g. "Air", "Low", "Sia".
  if (letters.length <= 3 && !/\d/.test(letters)) return 'tagged';
  return 'text';
}

/**
 * An index of the library's artist names for matching many articles quickly: each article's words
 * are looked up as phrases of up to `maxTokens` words, never scanning every artist per article.
 */
export class ArtistMatcher {
  /** Normalised phrase → artists with that name (text-strength names only). */
  private readonly phrases = new Map<string, MatchableArtist[]>();
  /** Normalised name → artists, for tag (category) matches, every strength but 'never'. */
  private readonly tags = new Map<string, MatchableArtist[]>();
  private maxTokens = 1;
  readonly size: number;

  constructor(artists: Iterable<MatchableArtist>) {
    let count = 0;
    for (const artist of artists) {
      const strength = nameStrength(artist.name);
      if (strength === 'never') continue;
      count++;
      const n = normalizeName(artist.name);
      const keys = new Set([n]);
      // "The National" is also written "National"? No: only "the" is dropped from tags and kept in text
      // ("The Cure" → tag "Cure" counts, text "cure" does not: it is a word on its own).
      if (n.startsWith(' the ') && tokensOf(n).length > 1) keys.add(n.slice(4));
      for (const k of keys) push(this.tags, k, artist);
      if (strength === 'text') {
        push(this.phrases, n, artist);
        this.maxTokens = Math.max(this.maxTokens, tokensOf(n).length);
      }
    }
    this.size = count;
  }

  /** The artists the article is about (each once, in the order they were found). */
  match(article: ArticleText): MatchableArtist[] {
    const found = new Map<number, MatchableArtist>();
    for (const category of article.categories ?? []) for (const a of this.tags.get(normalizeName(category)) ?? []) found.set(a.id, a);
    for (const text of [article.title, article.summary ?? '']) {
      const tokens = tokensOf(normalizeName(text));
      for (let i = 0; i < tokens.length; i++) {
        let phrase = ' ';
        for (let len = 1; len <= this.maxTokens && i + len <= tokens.length; len++) {
          phrase += tokens[i + len - 1] + ' ';
          for (const a of this.phrases.get(phrase) ?? []) found.set(a.id, a);
        }
      }
    }
    return [...found.values()];
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
