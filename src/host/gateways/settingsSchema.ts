/**
 * Every `modelRelay.*` setting, once: its zod schema and its default (taken from the core's
 * defaults). package.json `contributes.configuration` declares the same keys and defaults — a test
 * checks both agree. src/extension/gateways/settings.ts reads VS Code's configuration through this; no other
 * module reads a `modelRelay.*` key. Plain Node, no `vscode`.
 */
import { z } from 'zod';
import {
  DEFAULT_CLI_VARIABLES,
  DEFAULT_IMAGE_SIZE,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_UPLOAD_BYTES,
  DEFAULT_OUTPUT_FOLDERS,
  DEFAULT_RETRY,
  DEFAULT_TIMEOUTS,
  DEFAULT_VIDEO_SECONDS,
  type Fallbacks,
  type GatewayProfile,
  type Surface,
} from '../../gateway';
import { fallbackList, gatewayList } from './gatewayList';
import { COMPLETION_DEFAULTS, type CompletionSettingValues } from '../completions/completionSettings';

const setting = <T extends z.ZodType>(schema: T, defaultValue: z.infer<T>) => ({ schema, default: defaultValue });
const num = (min: number, max: number) => z.number().min(min).max(max);
const str = z.string();
const SECOND = 1000;

/** `modelRelay.models.overrides[id]`: what the gateway cannot tell us about a model. */
const modelOverride = z.object({
  surface: z.enum(['compatible', 'native', 'responses']).optional(),
  maxInputTokens: z.number().int().min(1).optional(),
  maxOutputTokens: z.number().int().min(1).optional(),
  toolCalling: z.boolean().optional(),
  imageInput: z.boolean().optional(),
  thinkingBudget: z.number().int().min(1024).optional(),
  replayReasoning: z.boolean().optional(),
  /** inline suggestions: fill-in-the-middle on /v1/completions (true) or a short chat request (false); unset: by family */
  fim: z.boolean().optional(),
});

export const SETTINGS = {
  /** read from user settings only (machine scope): a repository cannot redirect the token */
  baseUrl: setting(str, ''),
  backupUrls: setting(z.array(str), []),
  defaultSurface: setting(z.enum(['compatible', 'native', 'responses']), 'compatible'),
  'models.chat': setting(str, ''),
  'models.native': setting(str, ''),
  'models.image': setting(str, ''),
  'models.imageEdit': setting(str, ''),
  'models.video': setting(str, ''),
  'models.overrides': setting(z.record(str, modelOverride), {}),
  maxTokens: setting(num(1, 1_000_000), DEFAULT_MAX_TOKENS),
  'quota.warnBelow': setting(num(0, 1e12), 1),
  /** unset (null): the model's own default, nothing sent */
  temperature: setting(num(0, 2).nullable(), null),
  stream: setting(z.boolean(), true),
  'timeouts.chatSeconds': setting(num(5, 3600), DEFAULT_TIMEOUTS.chatMs / SECOND),
  'timeouts.streamIdleSeconds': setting(num(5, 3600), DEFAULT_TIMEOUTS.streamIdleMs / SECOND),
  'timeouts.chatOverallSeconds': setting(num(10, 7200), DEFAULT_TIMEOUTS.chatOverallMs / SECOND),
  'timeouts.imageSeconds': setting(num(10, 3600), DEFAULT_TIMEOUTS.imageMs / SECOND),
  'timeouts.videoSeconds': setting(num(10, 3600), DEFAULT_TIMEOUTS.videoMs / SECOND),
  'timeouts.videoOverallMinutes': setting(num(1, 24 * 60), DEFAULT_TIMEOUTS.videoOverallMs / (60 * SECOND)),
  maxRetries: setting(num(0, 10), DEFAULT_RETRY.maxRetries),
  extraHeaders: setting(z.record(str, str), {}),
  /** each entry checked by the core's parseGateways (a bad entry is dropped, the others kept) */
  gateways: setting(z.array(z.unknown()), []),
  fallbacks: setting(z.record(str, z.unknown()), {}),
  'images.maxUploadBytes': setting(num(1024, 1024 * 1024 * 1024), DEFAULT_MAX_UPLOAD_BYTES),
  'images.outputFolder': setting(str, DEFAULT_OUTPUT_FOLDERS.images),
  'images.defaultSize': setting(str, DEFAULT_IMAGE_SIZE),
  'videos.outputFolder': setting(str, DEFAULT_OUTPUT_FOLDERS.videos),
  'videos.defaultSeconds': setting(num(1, 3600), DEFAULT_VIDEO_SECONDS),
  'nativeCli.baseUrlVariable': setting(str, DEFAULT_CLI_VARIABLES.baseUrl),
  'nativeCli.tokenVariable': setting(str, DEFAULT_CLI_VARIABLES.token),
  /** per language (language-overridable); read for the document asked about */
  'completions.enabled': setting(z.boolean(), COMPLETION_DEFAULTS.enabled),
  /** the gateway made from the old settings; the others: `gateways[].models.completion` */
  'completions.model': setting(str, COMPLETION_DEFAULTS.model),
  'completions.contextTokens': setting(z.number().int().min(64).max(32_000), COMPLETION_DEFAULTS.contextTokens),
  'completions.maxTokens': setting(z.number().int().min(1).max(2048), COMPLETION_DEFAULTS.maxTokens),
  'completions.exclude': setting(z.array(str).max(200), COMPLETION_DEFAULTS.exclude),
  'completions.maxFileSize': setting(z.number().int().min(1024).max(100_000_000), COMPLETION_DEFAULTS.maxFileSize),
  'completions.maxCostPerHour': setting(z.number().min(0).max(1e9).nullable(), COMPLETION_DEFAULTS.maxCostPerHour),
  'completions.maxTokensPerHour': setting(z.number().int().min(0).max(1e10), COMPLETION_DEFAULTS.maxTokensPerHour),
  'commitMessage.model': setting(str, ''),
} as const;

export type SettingKey = keyof typeof SETTINGS;
export type SettingValues = { -readonly [K in SettingKey]: z.infer<(typeof SETTINGS)[K]['schema']> };

/**
 * Keys read from user settings only (machine scope in package.json), whatever a workspace says: the
 * address the token goes to, the variables a terminal tool reads it from, and how often a call is retried.
 */
export const USER_ONLY: ReadonlySet<SettingKey> = new Set<SettingKey>([
  'baseUrl',
  'backupUrls',
  'gateways',
  'fallbacks',
  'maxRetries',
  'nativeCli.baseUrlVariable',
  'nativeCli.tokenVariable',
]);

/** Every setting validated: a value that does not fit its schema falls back to the default. */
export function parseSettings(read: (key: SettingKey) => unknown): SettingValues {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const { schema, default: fallback } = SETTINGS[key];
    const r = (schema as z.ZodType).safeParse(read(key));
    out[key] = r.success ? r.data : fallback;
  }
  return out as SettingValues;
}

export interface RelaySettings {
  /** the gateway root address (user scope only) */
  baseUrl: string;
  /** backup domains, same path rules (user scope only) */
  backupUrls: string[];
  defaultSurface: Surface;
  models: { chat: string; native: string; image: string; imageEdit: string; video: string; completion: string };
  /** per model id, for VS Code's chat */
  modelOverrides: Record<string, z.infer<typeof modelOverride>>;
  maxTokens: number;
  /** the status bar turns to its warning look below this balance (in the gateway's display unit) */
  quotaWarnBelow: number;
  /** undefined: the model's own default (nothing sent) */
  temperature: number | undefined;
  stream: boolean;
  timeouts: {
    chatSeconds: number;
    streamIdleSeconds: number;
    chatOverallSeconds: number;
    imageSeconds: number;
    videoSeconds: number;
    videoOverallMinutes: number;
  };
  maxRetries: number;
  extraHeaders: Record<string, string>;
  /** every gateway: the one made from the settings above (id `default`) first, then modelRelay.gateways */
  gateways: GatewayProfile[];
  /** modelRelay.fallbacks (user scope only) */
  fallbacks: Fallbacks;
  /** why a gateway entry or the fallbacks were ignored (for the log, once per change) */
  gatewayProblems: string[];
  imagesMaxUploadBytes: number;
  images: { outputFolder: string; defaultSize: string };
  videos: { outputFolder: string; defaultSeconds: number };
  nativeCli: { baseUrlVariable: string; tokenVariable: string };
  /** inline suggestions' limits and exclusions (whether they are on is read per language, the model per gateway) */
  completions: CompletionSettingValues;
  /** Generate Commit Message's model ('' : the completion model, else the chat's) */
  commitMessage: { model: string };
  /** the variable Codex CLI and opencode read the token from (their config files name it) */
}

/** The settings as the extension uses them (model ids trimmed, empty backups dropped). */
export function relaySettings(v: SettingValues): RelaySettings {
  const t = (s: string) => s.trim();
  const gateway = {
    baseUrl: v.baseUrl,
    backupUrls: v.backupUrls.filter((u) => u.trim()),
    extraHeaders: v.extraHeaders,
    defaultSurface: v.defaultSurface,
    models: {
      chat: t(v['models.chat']),
      native: t(v['models.native']),
      image: t(v['models.image']),
      imageEdit: t(v['models.imageEdit']),
      video: t(v['models.video']),
      completion: t(v['completions.model']),
    },
  };
  const list = gatewayList(gateway, v.gateways);
  const fallbacks = fallbackList(v.fallbacks);
  return {
    ...gateway,
    gateways: list.gateways,
    fallbacks: fallbacks.fallbacks,
    gatewayProblems: [...list.problems, ...fallbacks.problems],
    modelOverrides: v['models.overrides'],
    maxTokens: v.maxTokens,
    quotaWarnBelow: v['quota.warnBelow'],
    temperature: v.temperature ?? undefined,
    stream: v.stream,
    timeouts: {
      chatSeconds: v['timeouts.chatSeconds'],
      streamIdleSeconds: v['timeouts.streamIdleSeconds'],
      chatOverallSeconds: v['timeouts.chatOverallSeconds'],
      imageSeconds: v['timeouts.imageSeconds'],
      videoSeconds: v['timeouts.videoSeconds'],
      videoOverallMinutes: v['timeouts.videoOverallMinutes'],
    },
    maxRetries: v.maxRetries,
    imagesMaxUploadBytes: v['images.maxUploadBytes'],
    images: {
      outputFolder: v['images.outputFolder'] || DEFAULT_OUTPUT_FOLDERS.images,
      defaultSize: v['images.defaultSize'],
    },
    videos: {
      outputFolder: v['videos.outputFolder'] || DEFAULT_OUTPUT_FOLDERS.videos,
      defaultSeconds: v['videos.defaultSeconds'],
    },
    nativeCli: {
      baseUrlVariable: v['nativeCli.baseUrlVariable'] || DEFAULT_CLI_VARIABLES.baseUrl,
      tokenVariable: v['nativeCli.tokenVariable'] || DEFAULT_CLI_VARIABLES.token,
    },
    completions: {
      contextTokens: v['completions.contextTokens'],
      maxTokens: v['completions.maxTokens'],
      exclude: v['completions.exclude'],
      maxFileSize: v['completions.maxFileSize'],
      maxCostPerHour: v['completions.maxCostPerHour'],
      maxTokensPerHour: v['completions.maxTokensPerHour'],
    },
    commitMessage: { model: t(v['commitMessage.model']) },
  };
}
