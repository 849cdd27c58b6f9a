/**
 * The chat webview's words: every label, tooltip, placeholder, status word and notice it shows.
 * The webview does not translate: the host builds this record with `t()` (src/host/chat/chatWords.ts)
 * and writes it into the page (`data-strings` on the root element); the webview checks it with
 * {@link parseChatStrings} at that boundary. Templates keep `{0}`, `{1}`… for the webview to
 * {@link fill}. Runs anywhere: no `vscode`, no DOM, no zod (this file is in the webview bundle).
 */

export const CHAT_STRING_KEYS = [
  // toolbar and settings
  'surfaceLabel',
  'surfaceCompatible',
  'surfaceNative',
  'surfaceResponses',
  'nameCompatible',
  'nameNative',
  'nameResponses',
  'modelLearnt',
  'modelLabel',
  'modelTitle',
  'refreshModels',
  'newChat',
  'newChatTitle',
  'settingsSummary',
  'systemLabel',
  'systemPlaceholder',
  'temperature',
  'temperatureDefault',
  'maxTokens',
  'modelDefault',
  'noModelNative',
  'noModelChat',
  'loadingModels',
  'modelsFailed',
  'gatewayGroup',
  'gatewayGroupActive',
  'gatewayModelsFailed',
  // conversation and composer
  'conversation',
  'empty',
  'inputLabel',
  'inputPlaceholder',
  'removeContext',
  'contextLabel',
  'line',
  'lines',
  'imagesToSend',
  'attach',
  'attachTitle',
  'streamingOff',
  'streamingOffTitle',
  'regenerate',
  'regenerateTitle',
  'stop',
  'stopTitle',
  'send',
  'sendTitle',
  'composerActions',
  // attachments
  'imageName',
  'removeImage',
  'pastedImage',
  'quotedName',
  'notAddedType',
  'notAddedSize',
  'tooManyOne',
  'tooManyMany',
  'notAnImage',
  'unreadable',
  'stillReading',
  'bytes',
  'kilobytes',
  'megabytes',
  // messages
  'you',
  'assistant',
  'receiving',
  'imageMissing',
  'imageMissingTitle',
  'imageShowLarger',
  'imageShowSmaller',
  'imageTitle',
  'thoughtFor',
  'thinkingNow',
  'thinking',
  'seconds',
  'retryHttp',
  'retryConnection',
  'retrying',
  'stoppedPartial',
  'stoppedEmpty',
  'turnStreamingOff',
  'streamingIsOff',
  'usageTokens',
  'noUsage',
  'cutOff',
  'filtered',
  'endedOther',
  'answeredBy',
  // error card
  'kindNetwork',
  'kindTimeout',
  'kindProtocol',
  'kindStream',
  'kindBadRequest',
  'kindError',
  'labelled',
  'cause',
  'fix',
  'gatewaySaid',
  'endpoint',
  'token',
  'model',
  'modelSurface',
  'requestId',
  'billing',
  'loggedByGateway',
  'retries',
  'retriedGaveUp',
  'stream',
  'streamFailedNote',
  'retryPlain',
  'retryBilled',
  'runDiagnose',
  'requestLog',
  'copySupportReport',
  // code blocks and blocked images
  'imageNotLoaded',
  'imageNotLoadedAlt',
  'copy',
  'copied',
  'insert',
  'copyTitle',
  'insertTitle',
  'code',
  'codeOf',
] as const;

export type ChatStringKey = (typeof CHAT_STRING_KEYS)[number];

/** Every word of the chat webview, by key (templates with `{0}`…). */
export type ChatStrings = Readonly<Record<ChatStringKey, string>>;

const MAX_STRING = 2000;

/** The record when it holds every key as a string (and nothing else); undefined otherwise. */
export function parseChatStrings(raw: unknown): ChatStrings | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const rec = raw as Record<string, unknown>;
  const out: Partial<Record<ChatStringKey, string>> = {};
  for (const k of CHAT_STRING_KEYS) {
    const v = rec[k];
    if (typeof v !== 'string' || v.length > MAX_STRING) return undefined;
    out[k] = v;
  }
  if (Object.keys(rec).length !== CHAT_STRING_KEYS.length) return undefined;
  return out as ChatStrings;
}

/** Puts the arguments into a template's `{0}`, `{1}`… (a missing argument leaves its placeholder). */
export function fill(template: string, ...args: ReadonlyArray<string | number>): string {
  return template.replace(/\{(\d+)\}/g, (m, i: string) => {
    const v = args[Number(i)];
    return v === undefined ? m : String(v);
  });
}

/** A surface's short name in the page's language: "compatible", "native", "responses". */
export function surfaceWord(surface: 'compatible' | 'native' | 'responses', s: ChatStrings): string {
  return surface === 'native' ? s.nameNative : surface === 'responses' ? s.nameResponses : s.nameCompatible;
}
