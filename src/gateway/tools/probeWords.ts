/**
 * A failed probe's cause and fix in the tool's own terms: its variable or key, the file it came
 * from, the path it appends (a /v1 too many or too few), its model setting. The classification is
 * the error machinery's (errors/); this file only words it for the tool.
 */
import { normalizeBaseUrl } from '../endpoint';
import type { GatewayError } from '../errors/gatewayError';
import { saidText } from '../diagnose/outcomeFromError';
import { originOf, type CredentialScope } from '../http/egress';
import { t } from '../l10n';
import { maskToken } from '../mask';
import { copilotRefusal } from './copilotCli';
import { copilotPath, type ProbeTarget } from './probeRequests';
import { toolKeys, toolLabel } from './tools';
import type { ToolSource } from './types';

export interface Words {
  cause: string;
  fix: string;
}

/** Where a value came from, for a sentence: the file's path, or the terminal environment. */
export function sourceText(from: ToolSource | undefined): string {
  if (!from) return t('the terminal environment');
  switch (from.kind) {
    case 'file':
    case 'login':
      return from.where;
    case 'terminal':
      return t('the terminal environment');
    case 'default':
      return t("the tool's default");
  }
}

/** The key as the user wrote it ("env.ANTHROPIC_BASE_URL" in a settings file is ANTHROPIC_BASE_URL). */
function keyOf(from: ToolSource | undefined, fallback: string): string {
  return from?.key ? from.key.replace(/^env\./, '') : fallback;
}

export function names(target: ProbeTarget) {
  const k = toolKeys(target.tool);
  const credFallback =
    target.tool === 'claude-code' && target.credential?.header === 'x-api-key' ? 'ANTHROPIC_API_KEY' : k.cred;
  return {
    tool: toolLabel(target.tool),
    base: keyOf(target.baseUrl?.from, k.base),
    baseFrom: sourceText(target.baseUrl?.from),
    cred: keyOf(target.credential?.from, credFallback),
    credFrom: sourceText(target.credential?.from),
    model: keyOf(target.model?.from, k.model),
    modelFrom: sourceText(target.model?.from),
  };
}

/** The base address's path ends in /v1 (or /v1beta): the tool adds it again. */
function extraVersion(value: string): string | undefined {
  const m = /\/(v1beta|v1)\/*$/i.exec(value.trim());
  return m ? `/${m[1]}` : undefined;
}

function rootOf(value: string): string {
  return normalizeBaseUrl(value).base ?? value.replace(/\/(v1beta|v1)\/*$/i, '');
}

/**
 * Where an address came from, for a sentence that says whose file it is: "./.claude/settings.json, a
 * project file" (one a repository brings), "/home/u/.claude/settings.json, a user file", "the terminal
 * environment".
 */
export function placeText(from: ToolSource | undefined): string {
  if (from?.kind !== 'file') return sourceText(from);
  return from.projectPath ? t('{0}, a project file', from.projectPath) : t('{0}, a user file', from.where);
}

/**
 * The tool's address is outside its gateway's origins: nothing is sent (a repository's file must not
 * take the token elsewhere). Says where the address came from, whose file that is, and how to remove it.
 */
export function elsewhereWords(target: ProbeTarget, url: string, scope: CredentialScope): Words {
  const n = names(target);
  const origin = originOf(url) ?? url;
  return {
    cause: t(
      '{0} would send your token to {1} (named in {2}), which is not an address of {3} ({4}): the probe was not sent.',
      n.tool,
      origin,
      placeText(target.baseUrl?.from),
      scope.gateway,
      scope.origins.join(', '),
    ),
    fix: t(
      'Remove {0} from {1} (or point it at {2}); if {3} is your gateway, add it as the base URL or a backup domain in your user settings.',
      n.base,
      n.baseFrom,
      scope.origins[0] ?? '',
      origin,
    ),
  };
}

/** Why the probe was not sent (nothing to send, or a setting the tool itself refuses). */
export function preflight(target: ProbeTarget): Words | undefined {
  const n = names(target);
  if (target.tool === 'codex' && target.wireApi && target.wireApi.value !== 'responses')
    return {
      cause: t(
        'Codex refuses wire_api = "{0}" in {1}: its chat wire API was removed, so Codex stops with a configuration error before sending anything.',
        target.wireApi.value,
        sourceText(target.wireApi.from),
      ),
      fix: t('Set wire_api = "responses" in {0}.', sourceText(target.wireApi.from)),
    };
  const copilot = target.tool === 'copilot-cli' ? copilotRefusal(target) : undefined;
  if (copilot) return copilot;
  if (!target.baseUrl)
    return {
      cause: t('{0} has no gateway address ({1} is not set), so it does not call this gateway.', n.tool, n.base),
      fix: t('Run "Model Relay: Set Up Tools…" for {0}, or set {1}.', n.tool, n.base),
    };
  if (target.helper)
    return {
      cause: t(
        '{0} gets its key from the apiKeyHelper script named in {1}; Model Relay does not run it, so the probe was not sent.',
        n.tool,
        sourceText(target.helper),
      ),
      fix: t(
        'Run the tool once in a terminal to test it, or remove apiKeyHelper and run "Model Relay: Set Up Tools…".',
      ),
    };
  if (target.credential?.foreign)
    return {
      cause: t(
        '{0} carries the token of the gateway "{1}" ({2}), and its address is this gateway\'s: it would send that token to the wrong gateway, so the probe was not sent.',
        n.tool,
        target.credential.foreign,
        sourceText(target.credential.from),
      ),
      fix: t(
        'Run "Model Relay: Set Up Tools…" for {0} on this gateway, or point it back at "{1}".',
        n.tool,
        target.credential.foreign,
      ),
    };
  if (!target.credential)
    return target.tool === 'codex'
      ? {
          cause: t(
            'The variable {0} that env_key names is not set in this terminal: Codex stops with "Missing environment variable".',
            n.cred,
          ),
          fix: t(
            'Open a new terminal after "Model Relay: Set Up Tools…" (it puts {0} into new terminals), or export {0}.',
            n.cred,
          ),
        }
      : {
          cause: t('{0} has no credential for the gateway: {1} is not set.', n.tool, n.cred),
          fix: t('Run "Model Relay: Set Up Tools…" for {0}, or set {1} to this gateway\'s token.', n.tool, n.cred),
        };
  if (!target.model)
    return {
      cause: t(
        "No model is configured for {0} ({1}), and the gateway's list shows none it could use.",
        n.tool,
        n.model,
      ),
      fix: t("Set {0} to a model from this token's list (GET /v1/models).", n.model),
    };
  return undefined;
}

/** "404", or "a web page" when an HTML page answered. */
function answered(e: GatewayError): string {
  return e.detail === 'html_page' ? t('a web page') : String(e.status ?? 404);
}

/** A 404 (or a web page) on the tool's path: the address is wrong, or the gateway lacks that API. */
function notThere(target: ProbeTarget, e: GatewayError, path: string): Words {
  const n = names(target);
  const base = target.baseUrl!.value;
  const extra = extraVersion(base);
  const tool = target.tool;
  // Copilot CLI with the type anthropic takes the root address as Claude Code does, else a /v1 one as Codex does
  const root = tool === 'claude-code' || tool === 'gemini-cli' || copilotPath(target) === '/v1/messages';
  if (root && extra) {
    const appended = tool === 'gemini-cli' ? '/v1beta/models/…' : '/v1/messages';
    return {
      cause: t(
        '{0} ends in {1}: {2} adds {3} itself, so it calls {4}, which is not an API path of the gateway (it answered {5}).',
        n.base,
        extra,
        n.tool,
        appended,
        path,
        answered(e),
      ),
      fix: t('Remove {0} from {1} in {2}: set it to {3}.', extra, n.base, n.baseFrom, rootOf(base)),
    };
  }
  if (!root && !extra)
    return {
      cause: t(
        '{0} is {1}, without /v1: {2} appends {3} to it and calls {4}, which is not an API path of the gateway (it answered {5}).',
        n.base,
        base,
        n.tool,
        tool === 'codex' ? '/responses' : tool === 'copilot-cli' ? copilotPath(target) : '/chat/completions',
        path,
        answered(e),
      ),
      fix: t('Set {0} to {1}/v1 in {2}.', n.base, rootOf(base), n.baseFrom),
    };
  if (e.detail === 'html_page' && tool !== 'gemini-cli')
    return {
      cause: t(
        "{0} ({1}, from {2}) answers {3} with a web page, not the API: it is the gateway's console or another site.",
        n.base,
        base,
        n.baseFrom,
        path,
      ),
      fix: t("Set {0} to the gateway's API address (Set Up Tools… writes it).", n.base),
    };
  const api = {
    'claude-code': t('the Anthropic Messages API (/v1/messages), which Claude Code speaks'),
    codex: t('the Responses API (/v1/responses), the only one Codex speaks'),
    'gemini-cli': t('the Gemini API (/v1beta/models/…), which Gemini CLI speaks'),
    opencode: t('the Chat Completions API (/v1/chat/completions)'),
    'copilot-cli': {
      '/v1/messages': t('the Anthropic Messages API (/v1/messages)'),
      '/responses': t('the Responses API (/v1/responses)'),
      '/chat/completions': t('the Chat Completions API (/v1/chat/completions)'),
    }[copilotPath(target)],
  }[tool];
  return {
    cause: `${t('This gateway does not serve {0}: it answered {1} with {2} (one-api and older gateways do not serve it).', api, path, answered(e))}${saidText(e.gatewayMessage)}`,
    fix: t('Use a gateway that serves it (new-api does), or set up another tool for this gateway.'),
  };
}

function refusedCredential(target: ProbeTarget, e: GatewayError): Words {
  const n = names(target);
  const header = target.credential!.header === 'authorization' ? 'Authorization: Bearer' : target.credential!.header;
  return {
    cause: `${t('The gateway refused the credential {0} sends ({1}, {2} in {3}, sent as {4}) with {5}.', n.tool, maskToken(target.credential!.value), n.cred, n.credFrom, header, e.status ?? 401)}${saidText(e.gatewayMessage)}`,
    fix: t(
      "Set {0} in {1} to this gateway's token (Set Up Tools… does it), or remove the stale value there.",
      n.cred,
      n.credFrom,
    ),
  };
}

function refusedModel(target: ProbeTarget, e: GatewayError): Words {
  const n = names(target);
  const how = e.detail === 'model_not_found_503' ? '503 model_not_found' : String(e.status ?? 403);
  const model = target.model!.value;
  return {
    cause: `${t("The model {0} ({1}, from {2}) is not available to this token's group: the gateway answered {3}.", model, n.model, n.modelFrom, how)}${saidText(e.gatewayMessage)}`,
    fix:
      target.tool === 'claude-code'
        ? t(
            "Set {0} (and ANTHROPIC_DEFAULT_OPUS/SONNET/HAIKU_MODEL) in {1} to models of this token's group (GET /v1/models lists them), or use a token of a group that has {2}.",
            n.model,
            n.modelFrom,
            model,
          )
        : t(
            "Set {0} in {1} to a model of this token's group (GET /v1/models lists them), or use a token of a group that has {2}.",
            n.model,
            n.modelFrom,
            model,
          ),
  };
}

function cannotConvert(target: ProbeTarget, e: GatewayError): Words {
  const n = names(target);
  return {
    cause: `${t("The gateway cannot serve {0} in {1}'s API: the model's channel has no conversion for it (convert_request_failed).", target.model!.value, n.tool)}${saidText(e.gatewayMessage)}`,
    fix: t('Set {0} in {1} to a model the gateway serves on that API.', n.model, n.modelFrom),
  };
}

/** The failed probe's cause and fix in the tool's terms. `path`: what the tool called. */
export function failureWords(target: ProbeTarget, e: GatewayError, path: string): Words {
  const said = saidText(e.gatewayMessage);
  if (e.kind === 'not_found' || (e.kind === 'protocol' && e.detail === 'html_page'))
    return e.detail === 'double_v1' || e.kind === 'protocol' || !/model/i.test(e.gatewayMessage ?? '')
      ? notThere(target, e, path)
      : refusedModel(target, e);
  if (e.kind === 'unauthorized' && !e.detail) return refusedCredential(target, e);
  if (e.kind === 'bad_request' && /API key not valid/i.test(e.gatewayMessage ?? ''))
    return refusedCredential(target, e);
  if (e.kind === 'forbidden' && (e.detail === 'model_not_found_503' || !e.detail)) return refusedModel(target, e);
  if (e.detail === 'convert_request_failed') return cannotConvert(target, e);
  if (
    target.tool === 'claude-code' &&
    e.kind === 'bad_request' &&
    /beta|extra inputs|context_management/i.test(e.gatewayMessage ?? '')
  )
    return {
      cause: `${t("The gateway's upstream refused Claude Code's beta headers or fields (400).")}${said}`,
      fix: t('Set CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=1 for Claude Code (in the env block of its settings.json).'),
    };
  return { cause: `${e.message} ${e.reason}${said}`, fix: e.fix };
}

/** A 2xx whose stream did not finish as the tool expects. */
export function unfinishedWords(target: ProbeTarget, status: number, excerpt: string): Words {
  const n = names(target);
  const error = /"message"\s*:\s*"([^"]{1,300})"/.exec(excerpt)?.[1];
  return {
    cause: error
      ? t('The gateway answered {0} but the stream carried an error: "{1}".', status, error)
      : t('The gateway answered {0} but the stream did not finish the way {1} expects.', status, n.tool),
    fix: t(
      'Try again; if it persists, check for a proxy that buffers or cuts streams, and report it to the gateway operator.',
    ),
  };
}
