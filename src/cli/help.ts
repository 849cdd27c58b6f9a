/**
 * relay-doctor's usage text, in the current language (only the descriptions are translated, never
 * the syntax). Light: the translation function and the variable names, no core, so the entry can
 * answer `--help` without loading undici, zod or the client.
 */
import { t } from '../gateway/l10n';
import { ENV_BACKUP_URLS, ENV_BASE_URL, ENV_TOKEN, RECEIPT_WAIT } from './usage';

/** The usage text. */
export function usage(): string {
  return `relay-doctor — ${t('diagnose and use a Model Relay gateway from a terminal')}

${t('Usage:')}
  relay-doctor diagnose [--chat-model M] [--native-model M] [--json] [--trust-project]
  relay-doctor models [--json]      ${t('the models the token sees, with their prices and groups where the gateway publishes them')}
  relay-doctor quota [--json]       ${t('what is left on the token, and when it expires')}
  relay-doctor usage [--json] [--since 24h|7d|30d]  ${t("where the money went: the gateway's usage log per day, per model and per request")}
  relay-doctor receipts [--json] [--since 24h|7d|30d]  ${t("a receipt for each billed record of the token's usage log: its charge checked against the gateway's own formula and price list, the route the log records; a summary per model")}
  relay-doctor tools [--json] [--trust-project]  ${t("Claude Code, Codex CLI, Gemini CLI, opencode and GitHub Copilot CLI: each one's state, and one request from each tool set up for this gateway")}
  relay-doctor chat --surface compatible|native|responses --model M [--max-tokens N] [--no-stream] [--receipt] "prompt"
  relay-doctor diagnose --all --gateways FILE [--json]
  relay-doctor diagnose|models|quota|usage|receipts|chat|tools --gateways FILE --gateway NAME …
  relay-doctor --version

${t('Several gateways:')}
  --gateways FILE  ${t('several gateways from a JSON file (no tokens in it: each gateway\'s "tokenEnv" names the variable holding its token)')}
  --gateway NAME   ${t('one gateway of the file, by name or id')}
  --all            ${t('every gateway of the file: one summary row each, and the fallback targets checked')}

${t('Receipts:')}
  --receipt  ${t("chat: after the answer, wait up to {0} s ({1} reads of the usage log at most: the gateway limits them) for the call's record, and print its receipt on stderr; stdout keeps only the answer, and the exit code stays the chat's", RECEIPT_WAIT.ms / 1000, RECEIPT_WAIT.reads)}
  ${t("Each check, according to the gateway's log: ✓ consistent, ! inconsistent, – not checkable (the reason is said). No check says which model served a call.")}
  ${t('receipts --json writes:')}
    {readAt, since, priceListReadAt, inconsistent, disclaimer,
     receipts: [{time, requestId, match, matchText, requestedModel, billedModel, upstreamModel, tokens, charge,
                 group, ratios, latency, billingState, routeState, billing: [{id, state, reason, text, inputs}], route: […]}],
     perModel: [{model, records, charge, billing: {consistent, inconsistent, not-checkable}, redirects, forwards}]}

${t('Project files:')}
  --trust-project  ${t("read the terminal tools' files in the current folder too (.claude/settings.json, opencode.json, .gemini/…): a cloned repository's files are not read without it")}

${t('Environment:')}
  ${ENV_BASE_URL}     ${t('the gateway root address (e.g. https://gateway.example.com, no /v1)')}
  ${ENV_TOKEN}        ${t('the token (sk-…); never pass it as an argument')}
  ${ENV_BACKUP_URLS}  ${t('optional backup domains, comma separated')}
  ${t('HTTPS_PROXY / HTTP_PROXY / NO_PROXY are honoured.')}
  ${t("HTTPS trusts Node's roots, the operating system's certificate store and NODE_EXTRA_CA_CERTS (a corporate or internal CA).")}

${t('Exit codes: 0 success (diagnose: no check failed), 1 a check or request failed, 2 usage error, 3 a request failed after it may have reached the gateway and been billed (it was not sent again).')}
${t('receipts: 1 when a check of a record is inconsistent; 0 when every check is consistent or not checkable.')}
${t("chat also: 4 the answer was cut by the output budget (max tokens), 5 it was stopped by the gateway's content filter, 6 it ended with another finish reason; the text is printed all the same, and a line on stderr says how it ended.")}
`;
}
