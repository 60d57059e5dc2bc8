/** Text folding shared by the library's sort columns, identity keys and search. */

/**
 * Lower case, no Latin-style diacritics, collapsed whitespace. Only the combining diacritical marks
 * block is removed, so marks that change a word elsewhere (Japanese dakuten, Indic vowel signs) stay.
 */
export function foldText(value: string): string {
  return value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]+/gu, '')
    .normalize('NFC')
    .toLowerCase()
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Sort key: folded text; empty names sort last. */
export function sortName(value: string): string {
  const folded = foldText(value);
  return folded === '' ? '\uffff' : folded;
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
