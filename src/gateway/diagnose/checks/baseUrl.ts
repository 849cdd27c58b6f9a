/** Check 1: the base URL's shape by the endpoint rules (trailing slash, /v1, pasted endpoints, http). */
import { nativeMessagesUrl, type FindingCode } from '../../endpoint';
import { surfaceAdapter } from '../../chat/chat';
import { t } from '../../l10n';
import type { Check } from '../check';
import type { DiagnosisContext } from '../context';
import type { Outcome } from '../outcomeFromError';

/** The endpoint rules' fixes describe what normalisation did; a diagnosis says what to change. */
function findingFix(code: FindingCode): string | undefined {
  switch (code) {
    case 'whitespace':
      return t('Remove the whitespace from the setting (this client ignores it, other tools may not).');
    case 'trailing-slash':
      return t('Remove the trailing slash (this client ignores it, other tools may not).');
    case 'query-or-fragment':
      return t('Remove the query string or fragment: the base URL is only scheme, host and optional path prefix.');
    default:
      return undefined;
  }
}

function backupProblems(ctx: DiagnosisContext, details: string[]): string[] {
  const problems: string[] = [];
  ctx.backupNorm.forEach((b, i) => {
    if (!b.n.base)
      problems.push(t('Backup {0} "{1}" is not usable: {2}', i + 1, b.input, b.n.findings[0]?.message ?? t('invalid')));
    else {
      details.push(t('Backup {0}: {1}', i + 1, b.n.base));
      for (const f of b.n.findings)
        if (f.severity !== 'info') problems.push(t('Backup {0} "{1}": {2}', i + 1, b.input, f.message));
    }
  });
  return problems;
}

function run(ctx: DiagnosisContext): Outcome {
  const { n, input } = ctx;
  const details: string[] = [t('As configured: "{0}"', input.baseUrl)];
  if (!n.base) {
    const f = n.findings[0];
    return {
      result: 'fail',
      cause: f?.message ?? t('The base URL is not usable.'),
      fix: f?.fix ?? t('Set the gateway root address.'),
      details,
    };
  }
  const chatPath = surfaceAdapter('compatible').path;
  details.push(
    t('Root address: {0}', n.base),
    t('Compatible surface base: {0} (calls {1})', `${n.base}/v1`, `${n.base}${chatPath}`),
    t('Native surface base: {0} (calls {1})', n.base, nativeMessagesUrl(n.base)),
  );
  const backups = backupProblems(ctx, details);
  const findings = n.findings;
  if (!findings.length && !backups.length) {
    return {
      result: 'pass',
      cause: t('"{0}" is a root address: no trailing slash, no /v1, no endpoint path.', n.base),
      fix: '',
      details,
    };
  }
  const fixable = findings.some((f) => f.code !== 'http-public-host');
  return {
    result: 'warn',
    cause: [...findings.map((f) => f.message), ...backups].join(' '),
    fix: [
      ...findings.map((f) => findingFix(f.code) ?? f.fix),
      ...(backups.length ? [t('Give backup domains as root addresses too (same rules as the base URL).')] : []),
    ].join(' '),
    details,
    ...(fixable ? { fixAction: { kind: 'set-base-url', value: n.base } } : {}),
  };
}

export const baseUrlCheck: Check = { id: 'base-url', run };
