/**
 * What package.json contributes, read from the extension's own manifest at activation: every command,
 * view, language-model vendor, chat participant and tool, as `{ kind, id }`. The activation entry
 * registers one stand-in per entry (./hub.ts), so a new id of a kind listed here needs no code in
 * the entry: only its package.json entry and its implementation (see src/host/README.md).
 */
export type Kind = 'command' | 'view' | 'languageModels' | 'participant' | 'tool';

export interface Contribution {
  kind: Kind;
  id: string;
  /** views only: a webview view (`"type": "webview"`) rather than a tree */
  webview?: boolean;
}

interface Contributes {
  commands?: Array<{ command: string }>;
  views?: Record<string, Array<{ id: string; type?: string }>>;
  languageModelChatProviders?: Array<{ vendor: string }>;
  chatParticipants?: Array<{ id: string }>;
  languageModelTools?: Array<{ name: string }>;
}

export const key = (c: Pick<Contribution, 'kind' | 'id'>): string => `${c.kind}:${c.id}`;

export function contributions(packageJSON: unknown): Contribution[] {
  const c = ((packageJSON ?? {}) as { contributes?: Contributes }).contributes ?? {};
  return [
    ...(c.commands ?? []).map((x): Contribution => ({ kind: 'command', id: x.command })),
    ...Object.values(c.views ?? {})
      .flat()
      .map((v): Contribution => ({ kind: 'view', id: v.id, webview: v.type === 'webview' })),
    ...(c.languageModelChatProviders ?? []).map((p): Contribution => ({ kind: 'languageModels', id: p.vendor })),
    ...(c.chatParticipants ?? []).map((p): Contribution => ({ kind: 'participant', id: p.id })),
    ...(c.languageModelTools ?? []).map((t): Contribution => ({ kind: 'tool', id: t.name })),
  ];
}
