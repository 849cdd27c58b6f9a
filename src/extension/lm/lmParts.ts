/**
 * VS Code's language-model parts as plain data for src/host/lm (which never imports vscode), and
 * back: the only place that tests `instanceof` on them. Parts that came after 1.104
 * (`LanguageModelDataPart`, 1.106) and proposed ones (`LanguageModelThinkingPart`) are
 * feature-detected.
 */
import * as vscode from 'vscode';
import type { LmMessage, LmPart } from '../../host/lm/lmRequest';

type Ctor = abstract new (...args: never[]) => unknown;
const api = vscode as unknown as Record<string, unknown>;
const DataPart = api.LanguageModelDataPart as
  (Ctor & { image?: (data: Uint8Array, mime: string) => unknown }) | undefined;
const ThinkingPart = api.LanguageModelThinkingPart as (new (value: string) => unknown) | undefined;

/** A thinking part's text (its value is a string or, proposed, a list of strings). */
const thinkingText = (p: unknown): string => {
  const v = (p as { value?: unknown }).value;
  return typeof v === 'string' ? v : Array.isArray(v) ? v.filter((x) => typeof x === 'string').join('') : '';
};

/** Whether this VS Code carries images in language-model messages and tool results (1.106+). */
export const hasDataParts = typeof DataPart === 'function';

export function toLmPart(p: unknown): LmPart {
  if (p instanceof vscode.LanguageModelTextPart) return { kind: 'text', value: p.value };
  if (p instanceof vscode.LanguageModelToolCallPart)
    return { kind: 'toolCall', callId: p.callId, name: p.name, input: p.input };
  if (p instanceof vscode.LanguageModelToolResultPart)
    return { kind: 'toolResult', callId: p.callId, content: p.content.map(toLmPart) };
  if (DataPart && p instanceof DataPart) {
    const d = p as { mimeType: string; data: Uint8Array };
    return { kind: 'data', mimeType: d.mimeType, data: d.data };
  }
  // Reasoning VS Code hands back in the history (proposed API): the compatible surface sends it back.
  if (ThinkingPart && p instanceof ThinkingPart) return { kind: 'thinking', value: thinkingText(p) };
  if (p instanceof vscode.LanguageModelPromptTsxPart)
    return { kind: 'text', value: typeof p.value === 'string' ? p.value : JSON.stringify(p.value) };
  return { kind: 'other' };
}

export function toLmMessages(messages: readonly vscode.LanguageModelChatRequestMessage[]): LmMessage[] {
  return messages.map((m) => ({ role: m.role, content: m.content.map(toLmPart) }));
}

/** Reasoning as a thinking part where this VS Code has one (proposed API); otherwise not shown. */
export function thinkingPart(text: string): vscode.LanguageModelResponsePart | undefined {
  return ThinkingPart ? (new ThinkingPart(text) as vscode.LanguageModelResponsePart) : undefined;
}

/** An image for a tool result, where this VS Code carries one. */
export function imageDataPart(bytes: Uint8Array, mime: string): unknown {
  return DataPart?.image ? DataPart.image(bytes, mime) : undefined;
}
