/**
 * The terminal tools' rows (issue 26 §2), one per tool of the tools module (TOOL_IDS): the tool's
 * state as the tools module resolved it (address, credential and model in the tool's own precedence,
 * the override that wins), then the tool's own request sent once (probes.ts). `toolRow` is the one
 * place a state becomes a row: Diagnose's checks and `relay-doctor tools` (src/cli/toolsCommand.ts)
 * both call it, so they say the same thing for the same state.
 */
import { t } from '../l10n';
import { probeTool, type ToolProbe } from '../tools/probes';
import type { ProbeTarget } from '../tools/probeRequests';
import { probeTargetOf } from '../tools/probeTarget';
import { sourceText } from '../tools/probeWords';
import { toolCommand, toolLabel } from '../tools/tools';
import type { ToolGateway, ToolId, ToolSource, ToolStatus } from '../tools/types';
import type { ModelInfo } from '../models';
import type { Check } from './check';
import type { DiagnosisContext } from './context';
import type { Outcome } from './outcomeFromError';
import type { ToolFixAction } from './types';

const statusCache = new WeakMap<DiagnosisContext, Promise<ToolStatus[]>>();

/** The tools' states, read once per diagnosis. */
function statusesOf(ctx: DiagnosisContext): Promise<ToolStatus[]> {
  const tools = ctx.input.tools!;
  let p = statusCache.get(ctx);
  if (!p) statusCache.set(ctx, (p = tools.statuses(probeModels(ctx)).catch(() => [])));
  return p;
}

/** The gateway's models with the surfaces a probe picks a default from (the token's list, once read). */
function probeModels(ctx: DiagnosisContext): ToolGateway['models'] | undefined {
  if (ctx.input.tools?.models) return ctx.input.tools.models;
  return ctx.modelList && modelSurfaces(ctx.modelList);
}

/** Each listed model with the surfaces it is served on (as the native checks guess: without endpoint types, a claude-… id is native). */
export function modelSurfaces(
  list: ReadonlyArray<Pick<ModelInfo, 'id' | 'capabilities' | 'endpointTypes'>>,
): ToolGateway['models'] {
  return list.map((m) => ({
    id: m.id,
    surfaces: [
      ...(m.capabilities?.includes('native') || (!m.capabilities && /^claude/i.test(m.id))
        ? (['native'] as const)
        : []),
      ...(m.endpointTypes?.includes('gemini') ? (['gemini'] as const) : []),
      ...(m.capabilities?.includes('responses') ? (['responses'] as const) : []),
      ...(m.capabilities?.includes('chat') ? (['compatible'] as const) : []),
    ],
  }));
}

/** "~/.claude/settings.json: ANTHROPIC_BASE_URL", "terminal environment: GEMINI_API_KEY". */
function sourceWithKey(from: ToolSource): string {
  const key = from.key?.replace(/^env\./, '');
  return key ? t('{0}: {1}', sourceText(from), key) : sourceText(from);
}

/** The lines saying what the tool will use and what overrides it. */
function resolvedLines(s: ToolStatus): string[] {
  const r = s.resolved;
  if (!r) return [];
  const lines: string[] = [];
  if (r.baseUrl) lines.push(t('Address: {0} ({1}).', r.baseUrl.value, sourceWithKey(r.baseUrl.from)));
  if (r.auth)
    lines.push(
      r.auth.matches
        ? t(
            'Credential: {0}, sent as {1} ({2}); it is the token Model Relay uses for "{3}".',
            r.auth.masked,
            r.auth.header,
            sourceWithKey(r.auth.from),
            r.auth.matches,
          )
        : t('Credential: {0}, sent as {1} ({2}).', r.auth.masked, r.auth.header, sourceWithKey(r.auth.from)),
    );
  if (r.model) lines.push(t('Model: {0} ({1}).', r.model.value, sourceWithKey(r.model.from)));
  for (const o of r.overrides)
    lines.push(t('{0} overrides {1}: its values win over the setup.', sourceText(o.from), o.keys.join(', ')));
  for (const c of r.conflicts) lines.push(t('{0} Fix: {1}', c.what, c.fix));
  lines.push(...r.problems);
  return lines;
}

/** The probe's line: the request, its status and time (and why its model was picked). */
export function probeLines(p: ToolProbe): string[] {
  const lines = !p.request
    ? []
    : p.sent === false
      ? [t('Probe: {0} was not sent.', p.request)]
      : p.status
        ? [t('Probe: {0} answered {1} in {2} ms.', p.request, p.status, p.durationMs)]
        : [t('Probe: {0} got no answer ({1} ms).', p.request, p.durationMs)];
  if (p.note) lines.push(p.note);
  return lines;
}

/**
 * The override the tools module can remove from its file: the one in the file that names the tool's
 * address first (that decides where its token would go), else the first.
 */
function removableOverride(s: ToolStatus): Omit<ToolFixAction, 'kind' | 'tool'> | undefined {
  const fixable = s.resolved?.overrides.filter((x) => x.fixable && x.from.kind === 'file') ?? [];
  const base = s.resolved?.baseUrl?.from;
  const o = fixable.find((x) => base?.kind === 'file' && x.from.where === base.where) ?? fixable[0];
  return o && { path: o.from.where, keys: o.keys };
}

/**
 * Why no probe is sent: the diagnosis stopped, a 429 halted it, or the gateway refused this
 * diagnosis's token (nothing more is sent to a gateway that refuses, as for the other checks).
 */
function probeBlocked(ctx: DiagnosisContext): string | undefined {
  return (
    ctx.stopped() ??
    ctx.halt?.cause ??
    (ctx.tokenRefused ? t('The token was refused (401), so this was not tested.') : undefined)
  );
}

/**
 * A tool that sends this gateway's token but, by a known mistake (an address with /v1, a key that
 * steers it elsewhere), will not reach it: set up for this gateway and failing, said without a
 * request (its address may not be the gateway's, so its token is not sent there).
 */
function misaimed(s: ToolStatus): Outcome | undefined {
  const conflict = s.resolved?.conflicts[0];
  if (s.state !== 'not-set-up' || !s.resolved?.auth?.matches || !conflict) return undefined;
  return { result: 'fail', cause: conflict.what, fix: conflict.fix, details: resolvedLines(s) };
}

/** A tool that is not probed: not installed, not set up, or not available for this gateway. */
function notProbed(s: ToolStatus): Outcome | undefined {
  const wrong = misaimed(s);
  if (wrong) return wrong;
  const label = toolLabel(s.tool);
  const details = resolvedLines(s);
  if (s.state === 'not-installed')
    return {
      result: 'skipped',
      cause: t('{0} is not installed: no {1} command was found on PATH.', label, toolCommand(s.tool)),
      fix: '',
      details,
    };
  if (s.state === 'unavailable')
    return { result: 'skipped', cause: s.why ?? t('{0} cannot be set up for this gateway.', label), fix: '', details };
  if (s.state === 'not-set-up')
    return {
      result: 'skipped',
      cause: s.why ?? t('{0} is installed but not set up for this gateway.', label),
      fix: t('Run "Model Relay: Set Up Tools…" and pick {0}.', label),
      details,
    };
  return undefined;
}

/** What a tool's row needs besides its state: how its request is sent, and whether it may be. */
export interface ToolRowRun {
  /** the environment a new terminal gets: a credential named by a resolved source is read here */
  env: Record<string, string | undefined>;
  /** sends the tool's request (only to the gateway's own origins: probes.ts) */
  send: (target: ProbeTarget) => Promise<ToolProbe>;
  /** why no request may be sent now (the diagnosis stopped, a 429, a refused token): the row says it */
  blocked?: string | undefined;
  /** false: no request is sent (probes are off) */
  probe?: boolean | undefined;
  /** the editor can remove the override from its file: the row carries that Fix (`toolFix`) */
  fixOverrides?: boolean | undefined;
}

/** One tool's row, and the request sent for it (none for a tool that is not probed). */
export interface ToolRowOutcome {
  outcome: Outcome;
  probe?: ToolProbe | undefined;
}

/**
 * The one place a tool's state becomes a row (Diagnose's and relay-doctor's alike): not installed,
 * unavailable, not set up, or set up wrongly in a known way — said without a request; set up (or
 * overridden) — what it will use, the override that wins, and its own request's outcome.
 */
export async function toolRow(s: ToolStatus, run: ToolRowRun): Promise<ToolRowOutcome> {
  const skipped = notProbed(s);
  if (skipped) return { outcome: skipped };
  const details = [
    ...(s.installed
      ? [
          s.installed.version
            ? t('Installed: {0} ({1}).', s.installed.path, s.installed.version)
            : t('Installed: {0}.', s.installed.path),
        ]
      : []),
    ...resolvedLines(s),
  ];
  const override = removableOverride(s);
  const toolFix: ToolFixAction | undefined =
    override && run.fixOverrides ? { kind: 'fix-tool-override', tool: s.tool, ...override } : undefined;
  if (run.blocked || run.probe === false)
    return {
      outcome: {
        result: s.state === 'overridden' ? 'warn' : 'skipped',
        cause:
          run.blocked ?? s.why ?? t('{0} is set up; its request was not sent (probes are off).', toolLabel(s.tool)),
        fix: '',
        details,
        toolFix,
      },
    };
  const p = await run.send(await probeTargetOf(s, run.env));
  return { outcome: probeOutcome(s, p, details, override, toolFix), probe: p };
}

/** The row's result from the probe: fail when the tool's request fails; warn when it works but an override or conflict remains. */
function probeOutcome(
  s: ToolStatus,
  p: ToolProbe,
  details: string[],
  override: { path: string; keys: string[] } | undefined,
  toolFix: ToolFixAction | undefined,
): Outcome {
  const common = {
    details: [...details, ...probeLines(p)],
    ...(p.status ? { httpStatus: p.status } : {}),
    ...(p.url ? { url: p.url } : {}),
    ...(p.requestId ? { requestId: p.requestId } : {}),
    ...(s.resolved?.auth ? { maskedToken: s.resolved.auth.masked } : {}),
    toolFix,
  };
  // An override that can be removed decides where the request went: removing it is the fix, unless
  // the probe's own words say more (they name the same key and file, e.g. a token refused elsewhere).
  const removal = override ? t('Remove {0} from {1}.', override.keys.join(', '), override.path) : undefined;
  if (!p.ok) return { ...common, result: 'fail', cause: p.cause ?? '', fix: p.fix ?? removal ?? '' };
  const label = toolLabel(s.tool);
  const worked = t(
    '{0} will call {1} with the model {2}; that request answered {3}.',
    label,
    p.request,
    p.model ?? '',
    p.status ?? 200,
  );
  const r = s.resolved;
  if (s.state === 'overridden' || r?.conflicts.length || r?.problems.length)
    return {
      ...common,
      result: 'warn',
      cause: s.why ?? worked,
      fix: r?.conflicts[0]?.fix ?? removal ?? '',
    };
  return { ...common, result: 'pass', cause: worked, fix: '' };
}

/** A tool's row in the diagnosis: its probe sent the way the caller gives (the editor's client), else through the diagnosis's dispatcher. */
async function toolOutcome(ctx: DiagnosisContext, s: ToolStatus): Promise<Outcome> {
  const tools = ctx.input.tools;
  const send = tools?.send ?? ((tg, o) => probeTool(tg, { ...o, dispatcher: ctx.dispatcher }));
  const row = await toolRow(s, {
    env: tools?.env ?? {},
    blocked: probeBlocked(ctx),
    probe: tools?.probe,
    fixOverrides: tools?.fixOverrides,
    send: (target) =>
      send(target, {
        scope: ctx.credentialScope,
        signal: ctx.signal,
        timeoutMs: ctx.requestMs,
        models: probeModels(ctx),
        now: ctx.now,
      }),
  });
  return row.outcome;
}

/** The check of one tool, from the tools module's state (absent from a diagnosis given no tools' states). */
export function toolCheck(tool: ToolId): Check {
  return {
    id: `tool-${tool}`,
    applies: (ctx) => !!ctx.input.tools,
    run: async (ctx) => {
      const s = (await statusesOf(ctx)).find((x) => x.tool === tool);
      if (!s)
        return {
          result: 'skipped',
          cause: t('{0} is not installed: no {1} command was found on PATH.', toolLabel(tool), toolCommand(tool)),
          fix: '',
        };
      return toolOutcome(ctx, s);
    },
  };
}
