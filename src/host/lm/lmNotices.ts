/**
 * What Model Relay itself says inside a reply in VS Code's chat: that the request moved to another
 * gateway (before the answer), and how the answer ended when it did not simply end — cut by the output
 * budget, stopped by a content filter, another finish reason (after it; the core's rule,
 * gateway/chat/finishReason.ts). The stable provider API has no warning part
 * (shared/reference/vscode-lm-api.md §2), so a notice is a text part the user sees, one line of its
 * own: `> ⚠ Model Relay: <sentence>`. VS Code hands our text back in the history of later turns as if
 * the model had written it; `withoutNotices` recognises our notice lines exactly (the mark, the name
 * and one of our sentences, in the display language) and lmRequest.ts leaves them out of what the
 * model is sent. Plain Node, no `vscode`.
 */
import { adjustmentWords, endingWords, type ChatEvent, type RequestAdjustment } from '../../gateway';
import { failoverReason, type FailoverEvent } from '../../gateway/gateways/failover';
import { t } from '../../gateway/l10n';

/** The mark a notice line starts with: a failover, or an answer that did not simply end. */
const MARK = { failover: '↪', ending: '⚠' } as const;

function noticeLine(kind: keyof typeof MARK, sentence: string): string {
  return `> ${MARK[kind]} Model Relay: ${sentence}`;
}

function failoverSentence(from: string, model: string, why: string, to: string, toModel: string): string {
  return t(
    'gateway "{0}" could not serve {1} ({2}); answered by gateway "{3}" with {4}.',
    from,
    model,
    why,
    to,
    toModel,
  );
}

/** The line of a failover: who could not serve the request and why, and who answered (the gateway the last failover went to). */
export function failoverNotice(ev: FailoverEvent, answered: FailoverEvent['to']): string {
  const why = failoverReason(ev.error);
  return noticeLine(
    'failover',
    failoverSentence(ev.from.gatewayName, ev.from.model, why, answered.gatewayName, answered.model),
  );
}

/** The line of a parameter this gateway refused for the model just now: the request was sent again without it, or otherwise. */
export function adjustedNotice(a: RequestAdjustment): string {
  return noticeLine('ending', adjustmentWords(a));
}

/** The line of an answer that did not simply end (`maxTokens`: the budget the request asked for); none for a complete one. */
export function endingNotice(finishReason: string | undefined, maxTokens?: number): string | undefined {
  const words = endingWords(finishReason, maxTokens);
  return words && noticeLine('ending', words);
}

/**
 * The events of a chat for VS Code's chat with our notices as text: each failover a line given when
 * the next gateway's answer begins (so it can say who answered; with no answer at all the error tells
 * the story), and the answer's ending after its text, before `done`. Nothing of either is silent.
 */
export async function* withNotices(
  events: AsyncIterable<ChatEvent | FailoverEvent>,
  maxTokens?: number,
): AsyncIterable<ChatEvent> {
  let held: FailoverEvent[] = [];
  for await (const e of events) {
    if (e.type === 'failover') {
      held.push(e);
      continue;
    }
    const last = held.at(-1);
    if (last) {
      const lines = held.map((f) => failoverNotice(f, last.to));
      held = [];
      yield { type: 'text', text: `${lines.join('\n')}\n\n` };
    }
    if (e.type === 'done') {
      // What the gateway refused of this request (said once: later requests are built without it), and the ending.
      const lines = (e.result.adjustments ?? []).filter((a) => a.learntNow).map(adjustedNotice);
      const ending = endingNotice(e.result.finishReason, maxTokens);
      if (ending) lines.push(ending);
      if (lines.length) yield { type: 'text', text: `\n\n${[...new Set(lines)].join('\n')}` };
    }
    yield e;
  }
}

/** Stands for a word of a sentence while its pattern is made (a number for max tokens, text elsewhere). */
const HOLE_TEXT = '\u0000';
const HOLE_NUMBER = 987_654_321;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A sentence made with holes, as a pattern: its words exactly, any text on the line where a hole was. */
function sentencePattern(sentence: string): string {
  return sentence
    .split(new RegExp(`${HOLE_TEXT}|${HOLE_NUMBER}`))
    .map(escape)
    .join('[^\\n]*?');
}

/** Every notice line we write, in the display language now (made again when the language changes). */
function noticePattern(): RegExp {
  const h = HOLE_TEXT;
  const sentences = [
    noticeLine('failover', failoverSentence(h, h, h, h, h)),
    ...[endingNotice('length', HOLE_NUMBER), endingNotice('length'), endingNotice('content_filter')],
    // an unknown finish reason is the "other" sentence, with the reason where the hole is
    endingNotice(`x-${h}`)?.replace(`x-${h}`, h),
    ...(['not_sent', 'set'] as const).map((change) =>
      adjustedNotice({ model: h, param: h, change, to: h, source: 'learnt', learntNow: true }),
    ),
  ].filter((s): s is string => !!s);
  return new RegExp(`^(?:${sentences.map(sentencePattern).join('|')})$`);
}

let cached: { key: string; re: RegExp } | undefined;

function isNotice(line: string): boolean {
  const key = endingNotice('content_filter') ?? '';
  if (cached?.key !== key) cached = { key, re: noticePattern() };
  return cached.re.test(line.trimEnd());
}

/**
 * An assistant text VS Code handed back, without our notice lines (and the blank line that set each
 * block of them apart); any other text is returned as it is, character for character.
 */
export function withoutNotices(text: string): string {
  if (!text.includes(' Model Relay: ')) return text;
  const lines = text.split('\n');
  const out: string[] = [];
  let removed = false;
  for (let i = 0; i < lines.length; i++) {
    if (!isNotice(lines[i])) {
      out.push(lines[i]);
      continue;
    }
    removed = true;
    let end = i;
    while (end + 1 < lines.length && isNotice(lines[end + 1])) end++;
    const blankBefore = out.length === 0 || out[out.length - 1].trim() === '';
    // The blank line that set the block apart: after it (a failover before the answer), else before it (an ending).
    if (end + 1 < lines.length && lines[end + 1].trim() === '' && blankBefore) end++;
    else if (end + 1 === lines.length && out.length && out[out.length - 1].trim() === '') out.pop();
    i = end;
  }
  return removed ? out.join('\n') : text;
}
