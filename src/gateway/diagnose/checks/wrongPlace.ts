/** Check 9: an HTML page (the console, a CDN error page) answered where the API should have. */
import { t } from '../../l10n';
import type { Check } from '../check';

export const wrongPlaceCheck: Check = {
  id: 'wrong-place',
  run: (ctx) => {
    const html = ctx.html;
    if (!html.length) {
      return ctx.probes.some((p) => p.status !== undefined)
        ? {
            result: 'pass',
            cause: t('Every answer came from the API (JSON or an event stream), not from a web page.'),
            fix: '',
          }
        : { result: 'skipped', cause: t('No HTTP answer was received, so this could not be judged.'), fix: '' };
    }
    const first = html[0];
    const cdn = first.status !== undefined && first.status >= 500;
    return {
      result: 'fail',
      httpStatus: first.status,
      url: first.url,
      cause: cdn
        ? t(
            'An HTML error page (HTTP {0}) answered at {1}: a CDN or proxy in front of the gateway answered instead of the API.',
            first.status!,
            first.url,
          )
        : t(
            "An HTML page answered at {0} (HTTP {1}) where the API should answer: that is the gateway's web console or another web page, not its API.",
            first.url,
            first.status ?? '?',
          ),
      fix: cdn
        ? t('Retry after 1 to 2 minutes or use a backup domain; if it persists, report it to the gateway operator.')
        : t(
            'Set the base URL to the API root address shown in the gateway console (e.g. https://gateway.example.com), not the console page or a path under it.',
          ),
      details: html.map((h) => `${h.url}: ${h.message}`),
    };
  },
};
