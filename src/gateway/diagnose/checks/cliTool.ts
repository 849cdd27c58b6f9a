/** Check 8: the native command-line tool's environment and settings files point at this gateway. */
import { inspectCliTool } from '../cliToolSetup';
import { t } from '../../l10n';
import type { Check } from '../check';

export const cliToolCheck: Check = {
  id: 'cli-tool',
  skip: (ctx) =>
    ctx.input.cliTool ? undefined : { cause: t('The native command-line tool setup was not inspected.'), fix: '' },
  run: async (ctx) => {
    const { input, token } = ctx;
    const known = input.knownTokens?.length
      ? input.knownTokens
      : token
        ? [{ name: input.tokenName ?? 'active', value: token }]
        : [];
    const f = await inspectCliTool(input.cliTool!, { base: ctx.n.base, tokens: known });
    return {
      result: f.result,
      cause: f.cause,
      fix: f.fix,
      details: f.details,
      fixAction: f.fixAction,
      maskedToken: f.effective.token?.masked,
    };
  },
};
