/**
 * Text in terminal cells: a Chinese (CJK) character takes two cells, so the diagnosis table pads and
 * wraps by cells, and wraps CJK text between characters (it has no spaces to break at). For text
 * without wide characters this is exactly `padEnd` and word wrapping.
 */
import { translating } from '../l10n';

/** East Asian wide and full-width characters (CJK ideographs, kana, Hangul, full-width forms and punctuation). */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/;
/** A wide character with the closing punctuation that must stay on its line, a run of other non-spaces, or spaces. */
const TOKENS =
  /\s+|[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6][，。；：！？、）」』”’》]*|[^\s\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]+/g;

/** How many terminal cells `s` takes. */
export function cells(s: string): number {
  let n = 0;
  for (const ch of s) n += WIDE.test(ch) ? 2 : 1;
  return n;
}

/** `s` padded with spaces to `width` cells (like padEnd, counted in cells). */
export function padCells(s: string, width: number): string {
  return s + ' '.repeat(Math.max(0, width - cells(s)));
}

/** Lines of at most `width` cells (a longer single word stays whole), breaking at spaces and between wide characters. */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const para of text.split(/\r?\n/)) {
    let line = '';
    let lineCells = 0;
    let gap = false;
    for (const tok of para.match(TOKENS) ?? []) {
      if (/^\s/.test(tok)) {
        gap = true;
        continue;
      }
      const sep = gap ? 1 : 0;
      const w = cells(tok);
      gap = false;
      if (!line) {
        line = tok;
        lineCells = w;
      } else if (lineCells + sep + w <= width) {
        line += sep ? ` ${tok}` : tok;
        lineCells += sep + w;
      } else {
        out.push(line);
        line = tok;
        lineCells = w;
      }
    }
    out.push(line);
  }
  return out;
}

/** Sentences joined with a space after a Chinese full stop or comma lose the space (Chinese sets none); English is left as is. */
export function tidySpacing(s: string): string {
  return translating() ? s.replace(/([。！？；：，、]) +(?=\S)/g, '$1') : s;
}
