/**
 * The context a completion request sends: the text before the cursor (prefix) and after it (suffix),
 * cut by the token budget `contextTokens` — PREFIX_SHARE of it for the prefix, the rest (and what
 * the prefix left unused, near the top of a file) for the suffix. Cut at whole lines where a line
 * fits, counted with the host's script-aware estimate (src/gateway/tokenEstimate.ts) line by line,
 * so the cost is one pass over the windows' own characters, never over the whole file.
 */
import { estimateTokens } from '../../gateway/tokenEstimate';

export const PREFIX_SHARE = 0.7;
/** characters scanned per budget token at most (blank lines count little; this bounds the scan) */
const CHARS_PER_TOKEN_BOUND = 16;

/** at least this many characters each side of the cursor in a snapshot (the engine's own looks: the comment scan, the cache key) */
const MIN_WINDOW_CHARS = 8_192;

/**
 * How many characters on each side of the cursor a document snapshot must hold for `contextTokens`:
 * the windows never reach further (the scan bound), so the glue reads this much of a large document
 * instead of copying all of it on every keystroke.
 */
export function windowChars(contextTokens: number): number {
  return Math.max(MIN_WINDOW_CHARS, Math.max(1, Math.floor(contextTokens)) * CHARS_PER_TOKEN_BOUND);
}

export interface ContextWindows {
  prefix: string;
  suffix: string;
  /** the estimated tokens of both */
  tokens: number;
}

export function contextWindows(text: string, offset: number, contextTokens: number): ContextWindows {
  const budget = Math.max(1, Math.floor(contextTokens));
  const prefixBudget = Math.max(1, Math.floor(budget * PREFIX_SHARE));
  const before = cutBackward(text, offset, prefixBudget);
  const after = cutForward(text, offset, Math.max(1, budget - before.tokens));
  return {
    prefix: text.slice(before.start, offset),
    suffix: text.slice(offset, after.end),
    tokens: before.tokens + after.tokens,
  };
}

/** From `offset` backwards, whole lines while they fit in `budget`; a first line that does not fit is cut. */
function cutBackward(text: string, offset: number, budget: number): { start: number; tokens: number } {
  const floor = Math.max(0, offset - budget * CHARS_PER_TOKEN_BOUND);
  let start = offset;
  let used = 0;
  while (start > floor) {
    // the line before `start` with its newline (the cursor's line: its part before the cursor)
    const from = Math.max(floor, start < 2 ? 0 : text.lastIndexOf('\n', start - 2) + 1);
    const n = estimateTokens(text.slice(from, start));
    if (used + n > budget) {
      if (used === 0) {
        start -= Math.floor(((start - from) * budget) / n);
        used = budget;
      }
      break;
    }
    used += n;
    start = from;
  }
  return { start, tokens: used };
}

/** From `offset` forwards, whole lines while they fit in `budget`; a first line that does not fit is cut. */
function cutForward(text: string, offset: number, budget: number): { end: number; tokens: number } {
  const ceiling = Math.min(text.length, offset + budget * CHARS_PER_TOKEN_BOUND);
  let end = offset;
  let used = 0;
  while (end < ceiling) {
    // the rest of the line from `end`, with its newline
    const nl = text.indexOf('\n', end);
    const to = Math.min(ceiling, nl < 0 ? text.length : nl + 1);
    const n = estimateTokens(text.slice(end, to));
    if (used + n > budget) {
      if (used === 0) {
        end += Math.floor(((to - end) * budget) / n);
        used = budget;
      }
      break;
    }
    used += n;
    end = to;
  }
  return { end, tokens: used };
}
