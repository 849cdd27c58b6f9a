/**
 * Typed settings (prefix `modelRelay.`), validated with zod. `baseUrl` and `backupUrls` are read
 * from user (machine/application) scope only: a repository's .vscode/settings.json must never be
 * able to send the user's token to another host.
 */
import * as vscode from 'vscode';
import { z } from 'zod';
import type { ProxySettings } from '../gateway';

export const SECTION = 'modelRelay';

const surfaceSchema = z.enum(['compatible', 'native']);

export interface RelaySettings {
  /** the gateway root address (user scope only) */
  baseUrl: string;
  /** backup domains, same path rules (user scope only) */
  backupUrls: string[];
  defaultSurface: 'compatible' | 'native';
  models: { chat: string; native: string; image: string; imageEdit: string; video: string };
  maxTokens: number;
  temperature: number;
  stream: boolean;
  timeouts: { chatSeconds: number; streamIdleSeconds: number; imageSeconds: number; videoSeconds: number; videoOverallMinutes: number };
  maxRetries: number;
  extraHeaders: Record<string, string>;
  imagesMaxUploadBytes: number;
}

function pick<T>(schema: z.ZodType<T>, value: unknown, fallback: T): T {
  const r = schema.safeParse(value);
  return r.success ? r.data : fallback;
}

/** Reads a machine-scoped value from user settings only, whatever a workspace says. */
function userOnly<T>(cfg: vscode.WorkspaceConfiguration, key: string): T | undefined {
  const i = cfg.inspect<T>(key);
  return i?.globalValue ?? i?.defaultValue;
}

export function readSettings(): RelaySettings {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  const num = (key: string, fallback: number, min: number, max: number) => pick(z.number().min(min).max(max), cfg.get(key), fallback);
  const str = (key: string, fallback: string) => pick(z.string(), cfg.get(key), fallback).trim();
  return {
    baseUrl: pick(z.string(), userOnly<string>(cfg, 'baseUrl'), ''),
    backupUrls: pick(z.array(z.string()), userOnly<string[]>(cfg, 'backupUrls'), []).filter((u) => u.trim()),
    defaultSurface: pick(surfaceSchema, cfg.get('defaultSurface'), 'compatible'),
    models: {
      chat: str('models.chat', ''),
      native: str('models.native', ''),
      image: str('models.image', ''),
      imageEdit: str('models.imageEdit', ''),
      video: str('models.video', ''),
    },
    maxTokens: num('maxTokens', 4096, 1, 1_000_000),
    temperature: num('temperature', 0.7, 0, 2),
    stream: pick(z.boolean(), cfg.get('stream'), true),
    timeouts: {
      chatSeconds: num('timeouts.chatSeconds', 120, 5, 3600),
      streamIdleSeconds: num('timeouts.streamIdleSeconds', 60, 5, 3600),
      imageSeconds: num('timeouts.imageSeconds', 300, 10, 3600),
      videoSeconds: num('timeouts.videoSeconds', 120, 10, 3600),
      videoOverallMinutes: num('timeouts.videoOverallMinutes', 30, 1, 24 * 60),
    },
    maxRetries: num('maxRetries', 2, 0, 10),
    extraHeaders: pick(z.record(z.string(), z.string()), cfg.get('extraHeaders'), {}),
    imagesMaxUploadBytes: num('images.maxUploadBytes', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  };
}

/** VS Code's own proxy settings plus the environment, for the core's dispatcher. */
export function readProxySettings(): ProxySettings {
  const http = vscode.workspace.getConfiguration('http');
  return {
    proxy: http.get<string>('proxy') || undefined,
    strictSSL: http.get<boolean>('proxyStrictSSL') ?? true,
    noProxy: http.get<string[]>('noProxy') ?? [],
    env: process.env,
  };
}

/** Writes the base URL to user settings (never to a workspace). */
export async function writeBaseUrl(base: string): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update('baseUrl', base, vscode.ConfigurationTarget.Global);
}

export function affectsRelay(e: vscode.ConfigurationChangeEvent): boolean {
  return e.affectsConfiguration(SECTION) || e.affectsConfiguration('http.proxy') || e.affectsConfiguration('http.proxyStrictSSL') || e.affectsConfiguration('http.noProxy');
}
