/**
 * A script-aware token estimate, the answer while the real tokenizer loads and for texts too long
 * to tokenize on the hot path, and the core's estimate of a reply whose gateway reported no usage
 * (completions/). Measured against o200k on test/fixtures/tokens (test/host/lm.test.ts).
 * One pass over the UTF-16 code units (surrogate pairs read as one code point), no allocation per character.
 */

/** Han, kana, hangul, CJK punctuation and full-width forms: about 0.75 tokens a character in o200k. */
function isCjk(c: number): boolean {
  return (
    (c >= 0x3000 && c <= 0x9fff) ||
    (c >= 0xac00 && c <= 0xd7af) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xff00 && c <= 0xffef) ||
    (c >= 0x20000 && c <= 0x2fa1f)
  );
}

const isLetter = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** Fitted on test/fixtures/tokens against o200k (largest error per file about 5 %). */
export const ESTIMATE = { cjk: 0.75, lettersPerToken: 7, digitsPerToken: 3, punct: 0.7, newline: 0, other: 1 };

export function estimateTokens(text: string): number {
  let tokens = 0;
  let letters = 0;
  let digits = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i);
    if (isLetter(c)) {
      if (digits) {
        tokens += Math.ceil(digits / ESTIMATE.digitsPerToken);
        digits = 0;
      }
      letters++;
      continue;
    }
    if (isDigit(c)) {
      if (letters) {
        tokens += Math.ceil(letters / ESTIMATE.lettersPerToken);
        letters = 0;
      }
      digits++;
      continue;
    }
    if (letters) tokens += Math.ceil(letters / ESTIMATE.lettersPerToken);
    if (digits) tokens += Math.ceil(digits / ESTIMATE.digitsPerToken);
    letters = digits = 0;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    if (isSpace(c)) tokens += c === 0x0a ? ESTIMATE.newline : 0;
    else if (isCjk(c)) tokens += ESTIMATE.cjk;
    else if (c < 0x80) tokens += ESTIMATE.punct;
    else tokens += ESTIMATE.other;
  }
  if (letters) tokens += Math.ceil(letters / ESTIMATE.lettersPerToken);
  if (digits) tokens += Math.ceil(digits / ESTIMATE.digitsPerToken);
  return Math.max(1, Math.round(tokens));
}
