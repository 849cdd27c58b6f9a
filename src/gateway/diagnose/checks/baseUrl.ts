/** Check 1: the base URL's shape by the endpoint rules (trailing slash, /v1, pasted endpoints, http). */
import { nativeMessagesUrl, type FindingCode } from '../../endpoint';
import { surfaceAdapter } from '../../chat/chat';
import type { Check } from '../check';
import type { DiagnosisContext } from '../context';
import type { Outcome } from '../outcomeFromError';
import type { FixAction } from '../types';

/** The endpoint rules' fixes describe what normalisation did; a diagnosis says what to change. */
const FINDING_FIX: Partial<Record<FindingCode, string>> = {
  whitespace: 'Remove the whitespace from the setting (this client ignores it, other tools may not).',
  'trailing-slash': 'Remove the trailing slash (this client ignores it, other tools may not).',
  'query-or-fragment': 'Remove the query string or fragment: the base URL is only scheme, host and optional path prefix.',
};

function backupProblems(ctx: DiagnosisContext, details: string[]): string[] {
  const problems: string[] = [];
  ctx.backupNorm.forEach((b, i) => {
    if (!b.n.base) problems.push(`Backup ${i + 1} "${b.input}" is not usable: ${b.n.findings[0]?.message ?? 'invalid'}`);
    else {
      details.push(`Backup ${i + 1}: ${b.n.base}`);
      for (const f of b.n.findings) if (f.severity !== 'info') problems.push(`Backup ${i + 1} "${b.input}": ${f.message}`);
    }
  });
  return problems;
}

function run(ctx: DiagnosisContext): Outcome {
  const { n, input } = ctx;
  const details: string[] = [`As configured: "${input.baseUrl}"`];
  if (!n.base) {
    const f = n.findings[0];
    return { result: 'fail', cause: f?.message ?? 'The base URL is not usable.', fix: f?.fix ?? 'Set the gateway root address.', details };
  }
  const chatPath = surfaceAdapter('compatible').path;
  details.push(`Root address: ${n.base}`, `Compatible surface base: ${n.base}/v1 (calls ${n.base}${chatPath})`, `Native surface base: ${n.base} (calls ${nativeMessagesUrl(n.base)})`);
  const backups = backupProblems(ctx, details);
  const findings = n.findings;
  if (!findings.length && !backups.length) {
    return { result: 'pass', cause: `"${n.base}" is a root address: no trailing slash, no /v1, no endpoint path.`, fix: '', details };
  }
  const fixable = findings.some((f) => f.code !== 'http-public-host');
  return {
    result: 'warn',
    cause: [...findings.map((f) => f.message), ...backups].join(' '),
    fix: [...findings.map((f) => FINDING_FIX[f.code] ?? f.fix), ...(backups.length ? ['Give backup domains as root addresses too (same rules as the base URL).'] : [])].join(' '),
    details,
    ...(fixable ? { fixAction: { kind: 'set-base-url', value: n.base } as FixAction } : {}),
  };
}

export const baseUrlCheck: Check = { id: 'base-url', run };
