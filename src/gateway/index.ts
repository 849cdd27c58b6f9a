/**
 * The core's public surface, by name: what src/extension, src/cli, the tests and the benchmarks use.
 * No `export *`: a symbol is public because it is listed here.
 */
export {
  DEFAULT_CLI_VARIABLES,
  DEFAULT_CONCURRENCY,
  DEFAULT_DIAGNOSIS_TIMEOUTS,
  DEFAULT_IMAGE_SIZE,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_UPLOAD_BYTES,
  DEFAULT_OUTPUT_FOLDERS,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUTS,
  DEFAULT_VIDEO_SECONDS,
  LIST_ACROSS_BOUND_MS,
  MAX_STREAM_EVENT_BYTES,
  type Timeouts,
} from './defaults';
export {
  compatibleBase,
  hostOf,
  joinUrl,
  nativeBase,
  nativeMessagesUrl,
  normalizeBaseUrl,
  verbatimBaseUrl,
  type EndpointFinding,
  type FindingCode,
} from './endpoint';
export { maskToken, redactSecrets, stripUrlCredentials } from './mask';
export { looksLikeHtml, parseErrorBody, requestIdFrom, retryAfterFrom } from './errors/errorBody';
export { inputError, noImageError, noImageModelError, protocolError, streamError } from './errors/factories';
export { errorFromNetwork, tlsProblem, tlsProblemOf, type TlsProblem } from './errors/fromNetwork';
export { errorFromResponse } from './errors/fromResponse';
export {
  GatewayError,
  isGatewayError,
  type ErrorContext,
  type ErrorDetail,
  type ErrorKind,
  type Surface,
} from './errors/gatewayError';
export {
  HarEntryBuilder,
  harLog,
  observeHttp,
  type ExchangeFacts,
  type ExchangeSink,
  type HarEntry,
  type HarLog,
  type HarOptions,
  type HttpObserver,
} from './http/har';
export { redactBody, redactHeader, redactUrl } from './http/harRedact';
export { NATIVE_VERSION, requestHeaders } from './http/headers';
export { Limiter } from './http/limiter';
export { bypassesProxy, createDispatcher, describeProxy, type ProxyChoice, type ProxySettings } from './http/proxy';
export { describeTrust, trustedCertificates, type TrustSettings, type TrustSummary } from './http/trust';
export {
  costOf,
  deliveryOf,
  mayResend,
  retryDelayMs,
  shouldRetry,
  type Cost,
  type Delivery,
  type RetryNotice,
  type RetryOptions,
} from './http/retryPolicy';
export {
  DEFAULT_BURST,
  isBurst,
  sseEventBatches,
  sseEvents,
  type BurstThresholds,
  type TimedEvent,
} from './http/sseStream';
export {
  Transport,
  realSleep,
  type OpenResponse,
  type SendOptions,
  type Sleep,
  type TransportOptions,
} from './http/transport';
export {
  formatRecord,
  isLocalCount,
  type LocalCount,
  type RequestLogSink,
  type RequestPurpose,
  type RequestRecord,
} from './requestLog';
export { bundledCountText, localInputCount, tokenizerOf, type CountText } from './economy/inputCount';
export {
  COMPLETION_TIMEOUT_MS,
  DEFAULT_COMPLETION_MAX_TOKENS,
  FimRefusals,
  GatewayCompletions,
  type CompletionOverride,
} from './completions/completions';
export { cleanChatAnswer, CHAT_COMPLETION_SYSTEM } from './completions/chatMode';
export { COMPLETIONS_PATH, FIM_STOP, fimRefused } from './completions/fim';
export { completionModeOf, fimByFamily } from './completions/fimFamily';
export type { CompletionClient, CompletionMode, CompletionRequest, CompletionResult } from './completions/types';
export { estimateTokens } from './tokenEstimate';
export {
  CHAT_CAPABILITIES,
  canChat,
  capabilitiesFromEndpointTypes,
  checkCapability,
  parseModelList,
  type Capability,
  type ModelInfo,
} from './models';
export {
  GATEWAY_ID,
  MAX_BACKUPS,
  MAX_FALLBACKS_PER_MODEL,
  MAX_GATEWAYS,
  fallbacksSchema,
  gatewayIdFor,
  gatewayProfileSchema,
  parseFallbacks,
  parseGateways,
  suggestGatewayName,
  type FallbackTarget,
  type Fallbacks,
  type GatewayModels,
  type GatewayProfile,
  type ParsedGateways,
} from './gateways/profile';
export { GatewaySet, type GatewaySetOptions, type SharedConfiguration } from './gateways/gatewaySet';
export {
  chatAcross,
  chatStreamAcross,
  failoverReason,
  failoverWorthy,
  routesFor,
  type FailoverEvent,
  type NamedRoute,
  type Route,
} from './gateways/failover';
export {
  LATE_FACTOR,
  FIRST_READ_FACTOR,
  LATE_FLOOR_MS,
  listModelsAcross,
  type GatewayModelList,
  type ListAcrossOptions,
} from './gateways/listAcross';
export { chat, surfaceAdapter } from './chat/chat';
export { chatStream } from './chat/stream';
export { answerEnding, endingWords, type AnswerEnding } from './chat/finishReason';
export { compatibleSurface } from './chat/surfaces/compatible';
export { nativeSurface } from './chat/surfaces/native';
export { responsesSurface } from './chat/surfaces/responses';
export { MAX_LEARNT_MODELS, ModelMemory } from './chat/modelMemory';
export { RESPONSES_MIN_OUTPUT_TOKENS, ruleOf, type Learnt, type ReasoningEffort } from './chat/modelRules';
export { wirePlan, type RequestAdjustment, type WirePlan } from './chat/wirePlan';
export { MAX_ADJUSTED_RESENDS, parameterLesson, saysResponsesOnly } from './chat/refusals';
export { adjustmentWords, explainSurfaceRefusal, surfaceMoveWords } from './chat/refusalWords';
export { surfaceName, surfaceTitle, SURFACES } from './chat/surfaceWords';
export {
  type ChatEvent,
  type ChatMessage,
  type ChatRequest,
  type ChatResult,
  type ContentPart,
  type ImagePart,
  type ReasoningItemPart,
  type ReasoningPart,
  type RedactedThinkingPart,
  type ReplayedReasoning,
  type Role,
  type SurfaceAdapter,
  type SurfaceEvent,
  type SurfaceMove,
  type TextPart,
  type ThinkingPart,
  type ToolCall,
  type ToolCallPart,
  type ToolResultPart,
  type ToolSpec,
  type Usage,
} from './chat/types';
export { normalizeToolSchema, portableCallId } from './chat/tools';
export {
  KNOWN_EDIT_LIMITS,
  SIZE_PATTERN,
  buildEditForm,
  editUploadLimit,
  extensionForMime,
  parseImageResponse,
  sniffImageMime,
  validateSize,
  type GeneratedImage,
  type ImageEditRequest,
  type ImageGenerateRequest,
  type ImageResult,
} from './media/images';
export { type DownloadOutcome, type PollRequest, type VideoCreateRequest } from './media/videoCalls';
export {
  parseProgress,
  parseTask,
  phaseOf,
  pollDelayMs,
  pollTask,
  type PollOptions,
  type PollOutcome,
  type VideoPhase,
  type VideoTask,
} from './media/videos';
export {
  GatewayClient,
  type ClientConfiguration,
  type ConfigurationChange,
  type EndpointInfo,
  type GatewayClientOptions,
} from './client';
export { mediaFileName, slugify } from './fileNames';
export { applyCliEnvironment, nativeCliEnvironment, type CliVariableNames, type EnvCollection } from './cliEnv';
export { runDiagnosis } from './diagnose/engine';
export { checkTitle, checkTitles } from './diagnose/titles';
// The diagnosis of 1..N gateways (Diagnose Connection, Diagnose All Gateways, relay-doctor diagnose)
export {
  MAX_DIAGNOSIS_CONCURRENCY,
  SUMMARY_ASPECTS,
  SUMMARY_RESULT,
  checkFallbacks,
  diagnoseGateways,
  gatewayNamed,
  type DiagnosisExtras,
  type FallbackFinding,
  type GatewaySummaryRow,
  type GatewaysDiagnosis,
  type GatewaysDiagnosisInput,
  type SummaryAspect,
  type SummaryCell,
  type SummaryStatus,
} from './diagnose/diagnoseGateways';
export { describeProbe, probeHost, type HostOutcome, type HostProbe } from './diagnose/hostProbe';
export {
  aspectTitle,
  checkCounts,
  diagnosisSummary,
  gatewaysToJson,
  renderMarkdown,
  renderTable,
  reportToJson,
  type JsonCheck,
  type RenderOptions,
  type TableOptions,
} from './diagnose/report';
export {
  type CheckId,
  type CheckResult,
  type DiagnosisCheck,
  type DiagnosisInput,
  type DiagnosisModels,
  type DiagnosisProgress,
  type DiagnosisReport,
  type DiagnosisTimeouts,
  type FixAction,
  type HostFinding,
  type ToolFixAction,
  type ToolsDiagnosisInput,
} from './diagnose/types';
export { storedTokenShapeProblems, tokenShapeProblem, tokenShapeWarning, type TokenShapeProblem } from './tokenShape';
export { mergeTurns } from './chat/transcript';
export { Account, ACCOUNT_TTL } from './economy/account';
export {
  parsePriceList,
  parsePricing,
  priceText,
  replyCost,
  PRICING_PATH,
  type ModelPrice,
  type PriceList,
  type PublishedRatios,
} from './economy/pricing';
export { parseBilling, parseTokenUsage, quotaState, TOKEN_USAGE_PATH, type Quota } from './economy/quota';
export {
  formatAmount,
  fromQuota,
  fromUsd,
  parseStatus,
  unitOf,
  STATUS_PATH,
  type DisplayType,
  type GatewayStatus,
  type Units,
} from './economy/units';
export { UsageLog, USAGE_LOG_TIMING } from './economy/usageLog';
export { CriticalBudget, CRITICAL_BUDGET, type CriticalRoute } from './economy/criticalBudget';
export { arrivalIn } from './economy/arrival';
export { parseRecord, parseRecords, parseOther, USAGE_LOG_PATH, USAGE_LOG_BOUNDS } from './economy/usageLogParse';
export type { Arrival, UsageLogRead, UsageRecord } from './economy/usageTypes';
export {
  checkStateText,
  overallState,
  receiptDisclaimer,
  receiptOf,
  ratioInputs,
  INPUT_TOLERANCE,
  type BillingCheckId,
  type CheckInputs,
  type CheckState,
  type NotCheckable,
  type Receipt,
  type ReceiptCall,
  type ReceiptCheck,
  type ReceiptContext,
  type ReceiptMatch,
  type RouteCheckId,
} from './economy/receipts';
export { matchCalls, reconcile, MATCH_WINDOW_MS, type Matched, type Reconciled } from './economy/receiptMatch';
export {
  CHARGE_TOLERANCE,
  recompute,
  type ChargeFormula,
  type RecordRatios,
  type RecordTokens,
  type Recomputed,
  type UsageSemantic,
} from './economy/chargeFormula';
export { noChannelGroup, quotaRefusalFrom, tokenStateFrom } from './errors/gatewayWords';
export { describeQuota, type QuotaRow, type QuotaWords } from './economy/describe';
export { t, translating, useTranslations, type Translations } from './l10n';
