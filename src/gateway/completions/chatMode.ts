/**
 * Code completion by a short chat request, for models without fill-in-the-middle: a prompt that asks
 * for the insertion only, and the cleanup of what chat models still add around it (code fences, a
 * repeat of the cursor's line, the text after the cursor, their reasoning in `<think>` tags).
 * The prompt is the model's, not the user's: it is never translated.
 */
import type { ChatRequest } from '../chat/types';
import type { CompletionRequest } from './types';

/** Where the insertion goes, in the prompt. */
export const CURSOR = '<cursor>';

export const CHAT_COMPLETION_SYSTEM = [
  'You are a code completion engine inside an editor.',
  `Reply with only the text to insert at ${CURSOR}: no code fences, no explanation, no quotes.`,
  `Never repeat the code before or after ${CURSOR}; continue exactly where it stops, keeping its indentation.`,
  'Prefer finishing the current line or statement; at most a short block.',
  'If nothing useful fits, reply with nothing.',
].join('\n');

/** The user message: the file's name and language, and its text with the cursor marked. */
export function chatCompletionPrompt(req: Pick<CompletionRequest, 'prefix' | 'suffix' | 'languageId' | 'fileName'>) {
  return `File: ${req.fileName || 'untitled'} (language: ${req.languageId || 'plaintext'})\n<file>\n${req.prefix}${CURSOR}${req.suffix}\n</file>`;
}

/**
 * The chat request of one completion: short, the reply never streamed; deterministic (temperature
 * 0) where the surface takes a sampling default of ours. The responses surface takes a temperature
 * only when the user set one (its reasoning models refuse any): none is sent there.
 */
export function chatCompletionRequest(req: CompletionRequest, surface: ChatRequest['surface'], maxTokens: number) {
  const chat: ChatRequest = {
    surface,
    model: req.model,
    system: CHAT_COMPLETION_SYSTEM,
    messages: [{ role: 'user', content: chatCompletionPrompt(req) }],
    ...(surface === 'responses' ? {} : { temperature: 0 }),
    maxTokens,
    stream: false,
    signal: req.signal,
    // "Nothing fits" is an answer, not an error.
    acceptEmptyReply: true,
    purpose: 'completion',
  };
  return chat;
}

/** The inside of the first fenced code block, when the reply has one (else the reply). */
function unfenced(text: string): string {
  const block = /```[^\n`]*\n([\s\S]*?)(?:\n?```|$)/.exec(text);
  if (block) return block[1];
  // A lone fence line at either end (the model opened or closed one only).
  return text.replace(/^\s*```[^\n`]*\n/, '').replace(/\n?```\s*$/, '');
}

/** Lines before the cursor's a reply may repeat (a model that copies the context back). */
const ECHO_LINES = 10;

/** The reply without a copy of the lines before the cursor it starts with (through the cursor's line), if any. */
function withoutEchoedLines(text: string, prefix: string): string {
  let start = prefix.lastIndexOf('\n');
  const starts: number[] = [];
  for (let n = 0; n < ECHO_LINES && start > 0; n++) {
    start = prefix.lastIndexOf('\n', start - 1);
    starts.push(start + 1);
  }
  // The longest copy first: from ten lines back down to the line before the cursor's.
  for (const s of starts.reverse()) {
    const tail = prefix.slice(s);
    const lead = /^\s*/.exec(text)?.[0] ?? '';
    const bare = tail.trimStart();
    if (bare.trim() !== '' && text.slice(lead.length).startsWith(bare)) return text.slice(lead.length + bare.length);
  }
  return text;
}

/** The reply without a repeat of the cursor's line (whole, without its indentation, or the indentation alone). */
function withoutPrefixRepeat(text: string, prefix: string): string {
  const line = prefix.slice(prefix.lastIndexOf('\n') + 1);
  if (line === '') return text;
  if (line.trim() === '') return text.startsWith(line) ? text.slice(line.length) : text;
  if (text.startsWith(line)) return text.slice(line.length);
  const bare = line.trimStart();
  const lead = /^\s*/.exec(text)?.[0] ?? '';
  if (text.slice(lead.length).startsWith(bare)) return text.slice(lead.length + bare.length);
  return text;
}

/** The reply without the start of the suffix it ends with (the longest overlap that is not only whitespace). */
export function withoutSuffixOverlap(text: string, suffix: string): string {
  const head = suffix.trimStart();
  for (let k = Math.min(text.length, head.length, 2000); k > 0; k--) {
    const piece = head.slice(0, k);
    // A short overlap counts only when it is closing punctuation (`)`, `;`): a shared letter is chance.
    if (k < 3 && !/^[)\]}>'"`;,:]+$/.test(piece)) continue;
    if (piece.trim() !== '' && text.endsWith(piece)) return text.slice(0, text.length - k).trimEnd();
  }
  return text;
}

/**
 * A chat reply as the text to insert at the cursor: reasoning tags, code fences, a `<cursor>` echo,
 * a repeat of the cursor's line and an overlap with the text after the cursor removed; no trailing
 * blank space.
 */
export function cleanChatAnswer(reply: string, prefix: string, suffix: string): string {
  let text = reply.replace(/<think>[\s\S]*?<\/think>\s*/g, '').replace(/\r\n/g, '\n');
  text = unfenced(text).split(CURSOR).join('');
  text = withoutPrefixRepeat(withoutEchoedLines(text, prefix), prefix);
  text = withoutSuffixOverlap(text.trimEnd(), suffix);
  return text.trimEnd();
}
