/**
 * The chat webview's words, translated on the host: {@link chatStrings} calls `t()` for every entry
 * of the record the webview shows (src/shared/chatStrings.ts). Plain Node (no `vscode`): the
 * extension passes the result into the page; tests build the same record in English.
 */
import { surfaceName, surfaceTitle } from '../../gateway';
import { t } from '../../gateway/l10n';
import type { ByteUnits } from '../../shared/chatImages';
import type { ChatStringKey, ChatStrings } from '../../shared/chatStrings';

function toolbar() {
  return {
    surfaceLabel: t('Protocol surface'),
    surfaceCompatible: surfaceTitle('compatible'),
    surfaceNative: surfaceTitle('native'),
    surfaceResponses: surfaceTitle('responses'),
    nameCompatible: surfaceName('compatible'),
    nameNative: surfaceName('native'),
    nameResponses: surfaceName('responses'),
    modelLearnt: t('{0} (answers only on {1}: learnt from the gateway)'),
    modelLabel: t('Model'),
    modelTitle: t('Model (from /v1/models; configured defaults first)'),
    refreshModels: t('Refresh the model list'),
    newChat: t('New Chat'),
    newChatTitle: t('Start a new conversation'),
    settingsSummary: t('System prompt, temperature, max tokens'),
    systemLabel: t('System prompt'),
    systemPlaceholder: t('System prompt (optional)'),
    temperature: t('Temperature'),
    temperatureDefault: t("model's default"),
    maxTokens: t('Max tokens'),
    modelDefault: t('{0} (default)'),
    noModelNative: t('No model: set modelRelay.models.native'),
    noModelChat: t('No model: set modelRelay.models.chat'),
    loadingModels: t('Loading models…'),
    modelsFailed: t('Could not list models: {0}'),
    gatewayGroup: t('Gateway {0}'),
    gatewayGroupActive: t('Gateway {0} (active)'),
    gatewayModelsFailed: t('{0}: could not list models: {1}'),
  };
}

function composer() {
  return {
    conversation: t('Conversation'),
    empty: t('Ask the gateway anything. Enter sends, Shift+Enter adds a line, Escape stops.'),
    inputLabel: t('Message'),
    inputPlaceholder: t('Ask… (Enter to send, Shift+Enter for a new line)'),
    removeContext: t('Do not send the selection'),
    contextLabel: t('Selection: {0} ({1}, {2})'),
    line: t('line {0}'),
    lines: t('lines {0}–{1}'),
    imagesToSend: t('Images to send'),
    attach: t('Attach image'),
    attachTitle: t('Attach images (PNG, JPEG, GIF, WebP; up to 4, 5 MB each). You can also paste or drop them.'),
    streamingOff: t('Streaming off'),
    streamingOffTitle: t('modelRelay.stream is false: replies arrive in one piece'),
    regenerate: t('Regenerate'),
    regenerateTitle: t('Ask again for the last reply'),
    stop: t('Stop'),
    stopTitle: t('Stop the reply (Escape)'),
    send: t('Send'),
    sendTitle: t('Send (Enter)'),
    composerActions: t('Message actions'),
    imageName: t('image {0}'),
    removeImage: t('Remove image {0}'),
    pastedImage: t('The pasted image'),
    quotedName: t('"{0}"'),
    notAddedType: t('{0} was not added: only PNG, JPEG, GIF and WebP images can be attached.'),
    notAddedSize: t('{0} was not added: it is {1}, and each image may be at most {2}.'),
    tooManyOne: t('At most {0} images per message: {1} was not added.'),
    tooManyMany: t('At most {0} images per message: {1} images were not added.'),
    notAnImage: t('{0} was not added: it is not an image (only PNG, JPEG, GIF and WebP images can be attached).'),
    unreadable: t('{0} could not be read.'),
    stillReading: t('An image is still being read; send again in a moment.'),
    ...byteUnits(),
  };
}

/** The words for sizes ("812 KB"), for formatBytes on either side. */
export function byteUnits(): ByteUnits {
  return { bytes: t('{0} bytes'), kilobytes: t('{0} KB'), megabytes: t('{0} MB') };
}

function messages() {
  return {
    you: t('You'),
    assistant: t('assistant'),
    receiving: t('Receiving'),
    imageMissing: t('Image {0} ({1}) is no longer kept'),
    imageMissingTitle: t('The saved chat keeps the images of the last few turns only; this one is not sent again.'),
    imageShowLarger: t('Image {0}: show larger'),
    imageShowSmaller: t('Image {0}: show smaller'),
    imageTitle: t('{0} ({1}); click to show larger'),
    thoughtFor: t('Thought for {0}'),
    thinkingNow: t('Thinking…'),
    thinking: t('Thinking'),
    seconds: t('{0} s'),
    retryHttp: t('HTTP {0}'),
    retryConnection: t('a connection failure'),
    retrying: t('Attempt {0} failed ({1}); retrying with backoff (retry {0} of {2})…'),
    stoppedPartial: t('Stopped — the partial reply is kept.'),
    stoppedEmpty: t('Stopped before any text arrived.'),
    turnStreamingOff: t('Turn streaming off'),
    streamingIsOff: t('Streaming is off.'),
    usageTokens: t('{0} input · {1} output tokens'),
    noUsage: t('no token usage reported'),
    cutOff: t('cut off at max tokens'),
    filtered: t("stopped by the gateway's content filter"),
    endedOther: t('ended with finish reason "{0}"'),
    answeredBy: t('answered by {0}'),
    imageNotLoaded: t('[image not loaded]'),
    imageNotLoadedAlt: t('[image not loaded: {0}]'),
    copy: t('Copy'),
    copied: t('Copied'),
    insert: t('Insert'),
    copyTitle: t('Copy the code'),
    insertTitle: t('Insert the code at the cursor of the active editor'),
    code: t('Code'),
    codeOf: t('{0} code'),
  };
}

function errorCard() {
  return {
    kindNetwork: t('Connection failed'),
    kindTimeout: t('Timed out'),
    kindProtocol: t('Unexpected answer'),
    kindStream: t('Stream broke off'),
    kindBadRequest: t('Request refused'),
    kindError: t('Error'),
    labelled: t('{0}:'),
    cause: t('Cause'),
    fix: t('Fix'),
    gatewaySaid: t('Gateway said'),
    endpoint: t('Endpoint'),
    token: t('Token'),
    model: t('Model'),
    modelSurface: t('{0} ({1} surface)'),
    requestId: t('Request id'),
    billing: t('Billing'),
    loggedByGateway: t('Usage log'),
    retries: t('Retries'),
    retriedGaveUp: t('Retried with backoff; gave up after {0} attempts.'),
    stream: t('Stream'),
    streamFailedNote: t(
      'The stream failed ({0}); nothing was sent again. Asking again without streaming is billed again.',
    ),
    retryPlain: t('Retry Without Streaming (billed again)'),
    retryBilled: t('Retry (may be billed again)'),
    runDiagnose: t('Run Diagnose'),
    requestLog: t('Request Log'),
    copySupportReport: t('Copy Support Report'),
  };
}

/** Every word of the chat webview, in the display language (call it when building the page). */
export function chatStrings(): ChatStrings {
  const all = { ...toolbar(), ...composer(), ...messages(), ...errorCard() } satisfies Record<ChatStringKey, string>;
  return all;
}
