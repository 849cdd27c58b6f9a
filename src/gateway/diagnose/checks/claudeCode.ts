/**
 * Claude Code's row (formerly the native command-line tool check): from the tools module's state
 * when given, else from today's terminal variables and Claude Code's settings files (cliToolSetup.ts:
 * the env blocks of ~/.claude/settings.json or $CLAUDE_CONFIG_DIR/settings.json, and the project's);
 * then Claude Code's own request, sent once with what it will use.
 */
import {
  CLI_API_KEY_VARIABLE,
  inspectCliTool,
  readCliSources,
  type CliSource,
  type CliToolInput,
} from '../cliToolSetup';
import { DEFAULT_CLI_VARIABLES } from '../../defaults';
import { t } from '../../l10n';
import { probeTool } from '../../tools/probes';
import { fileSource } from '../../tools/common';
import type { ProbeTarget } from '../../tools/probeRequests';
import type { ToolSource } from '../../tools/types';
import type { Check } from '../check';
import type { DiagnosisContext } from '../context';
import type { Outcome } from '../outcomeFromError';
import { probeBlocked, probeLines, probeModels, statusesOf, toolOutcome } from '../toolCheck';

/** A source as the probe's words name it: a project file carries its path from the workspace folder. */
function sourceOf(input: CliToolInput, s: CliSource, variable: string): ToolSource {
  if (s.kind === 'terminal') return { kind: 'terminal', where: t('terminal environment'), key: variable };
  return fileSource(input, s.where, `env.${variable}`);
}

/** What Claude Code will send, from the sources as it ranks them (a later one overrides an earlier one). */
function terminalTarget(input: CliToolInput, sources: CliSource[]): ProbeTarget {
  const names = input.names ?? DEFAULT_CLI_VARIABLES;
  const last = (has: (s: CliSource) => unknown) => [...sources].reverse().find(has);
  const base = last((s) => s.baseUrl);
  const token = last((s) => s.token);
  const key = last((s) => s.apiKey);
  const model = input.env.ANTHROPIC_MODEL?.trim();
  return {
    tool: 'claude-code',
    baseUrl: base && { value: base.baseUrl!, from: sourceOf(input, base, names.baseUrl) },
    credential: token
      ? { value: token.token!, header: 'authorization', from: sourceOf(input, token, names.token) }
      : key && { value: key.apiKey!, header: 'x-api-key', from: sourceOf(input, key, CLI_API_KEY_VARIABLE) },
    model: model
      ? { value: model, from: { kind: 'terminal', where: t('terminal environment'), key: 'ANTHROPIC_MODEL' } }
      : undefined,
  };
}

/** Today's reading (terminal variables and settings files), with Claude Code's request sent once. */
async function fromTerminalVariables(ctx: DiagnosisContext): Promise<Outcome> {
  const { input, token } = ctx;
  const known = input.knownTokens?.length
    ? input.knownTokens
    : token
      ? [{ name: input.tokenName ?? 'active', value: token }]
      : [];
  const f = await inspectCliTool(input.cliTool!, { base: ctx.n.base, tokens: known });
  const found: Outcome = {
    result: f.result,
    cause: f.cause,
    fix: f.fix,
    details: f.details,
    fixAction: f.fixAction,
    maskedToken: f.effective.token?.masked,
  };
  const target = terminalTarget(input.cliTool!, (await readCliSources(input.cliTool!)).sources);
  if (!target.baseUrl || !target.credential || probeBlocked(ctx)) return found;
  if (input.cliTool!.which && !(await input.cliTool!.which('claude')))
    return {
      ...found,
      details: [
        ...f.details,
        t('Claude Code is not installed here (no claude command on PATH): its request was not sent.'),
      ],
    };
  const native = ctx.models.native;
  const listed = probeModels(ctx) ?? [];
  const p = await probeTool(target, {
    scope: ctx.credentialScope,
    dispatcher: ctx.dispatcher,
    signal: ctx.signal,
    timeoutMs: ctx.requestMs,
    now: ctx.now,
    models: native ? [{ id: native, surfaces: ['native'] }, ...listed] : listed,
  });
  const details = [...f.details, ...probeLines(p)];
  const http = { ...(p.status ? { httpStatus: p.status } : {}), ...(p.url ? { url: p.url } : {}) };
  if (p.ok) return { ...found, ...http, details };
  const warned = f.result !== 'pass';
  return {
    ...found,
    ...http,
    result: 'fail',
    cause: warned ? `${f.cause} ${p.cause ?? ''}` : (p.cause ?? ''),
    fix: warned && f.fix !== p.fix ? `${p.fix ?? ''} ${f.fix}` : (p.fix ?? ''),
    details,
  };
}

export const claudeCodeCheck: Check = {
  id: 'tool-claude-code',
  skip: (ctx) =>
    ctx.input.tools || ctx.input.cliTool
      ? undefined
      : { cause: t('The native command-line tool setup was not inspected.'), fix: '' },
  run: async (ctx) => {
    const s = ctx.input.tools && (await statusesOf(ctx)).find((x) => x.tool === 'claude-code');
    if (s) return toolOutcome(ctx, s);
    if (!ctx.input.cliTool)
      return { result: 'skipped', cause: t('The native command-line tool setup was not inspected.'), fix: '' };
    return fromTerminalVariables(ctx);
  },
};
