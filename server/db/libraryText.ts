/** Text folding shared by the library's sort columns, identity keys and search. */

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Lower case, no Latin-style diacritics, collapsed whitespace. Only the combining diacritical marks
 * block is removed, so marks that change a word elsewhere (Japanese dakuten, Indic vowel signs) stay.
 */
export function foldText(value: string): string {
  // Most names are plain ASCII, which both normalizations leave as they are (a scan folds about nine
  // names a file): only the case and the spaces change.
  if (ASCII.test(value)) return value.toLowerCase().replace(/\s+/g, ' ').trim();
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]+/gu, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Leading articles left out of sort keys (and sent to Subsonic clients as `ignoredArticles`). */
export const IGNORED_ARTICLES = 'The El La Los Las Le Les';
const ARTICLES = IGNORED_ARTICLES.toLowerCase().split(' ').map((a) => `${a} `);

/** Digit runs are zero-padded to this width, so numbers compare by value ("2" before "10"). */
const NUMBER_WIDTH = 10;

/**
 * THE sort key of every library name (artists, albums, tracks, genres), stored in the `sort_name`
 * columns and walked by the page indexes; /api pages, /rest lists and the artist index all order by
 * it. Folded text without a leading ignored article ("The Beatles" sorts as "beatles"), with digit
 * runs zero-padded for natural order ("Band 6" before "Band 59"); empty names sort last.
 * Changing it requires a migration that re-queues the stored-key recompute (librarySortKeys.ts).
 */
export function sortName(value: string): string {
  let key = foldText(value);
  const article = ARTICLES.find((a) => key.startsWith(a) && key.length > a.length);
  if (article) key = key.slice(article.length);
  key = key.replace(/[0-9]+/g, (run) => {
    const digits = run.replace(/^0+(?=[0-9])/, '');
    return digits.length >= NUMBER_WIDTH ? digits : digits.padStart(NUMBER_WIDTH, '0');
  });
  return key === '' ? '\uffff' : key;
}

/** Identity key part: folded text with punctuation removed, so "AC/DC" and "AC-DC" meet. */
export function nameKey(value: string): string {
  const key = foldText(value).replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  return key === '' ? foldText(value) : key;
}

/** Upper bound for a prefix range over folded text. */
export function prefixUpperBound(prefix: string): string {
  return prefix + '\uffff';
}
