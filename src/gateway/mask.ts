/** A secret's lines, each trimmed, blank ones left out (a token is one line; a value pasted with two is two). */
const linesOf = (s: string): string[] =>
  s
    .split(/[\r\n]+/)
    .map((l) => l.trim())
    .filter(Boolean);

/**
 * Token masking (spec 2.1): the first 6 characters, `...`, then the last 4 — of its first line only
 * (a value holding two tokens never shows anything of the second). Short values are masked completely
 * so nothing useful leaks.
 */
export function maskToken(token: string | undefined | null): string {
  if (!token) return '(none)';
  const t = linesOf(token)[0] ?? '';
  if (t.length <= 12) return `${t.slice(0, Math.min(3, Math.max(0, t.length - 8)))}...`;
  return `${t.slice(0, 6)}...${t.slice(-4)}`;
}

/** `scheme://user:password@` in any URL inside a text. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s"'<>]+@/gi;

/** Replaces the credentials of every URL in `text` with `***` (`https://***@host/...`). */
export function stripUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, '$1***@');
}

/**
 * Replaces every occurrence of each secret in `text` (each line of it, for a value holding two) with
 * its masked form — also the bare key without its `sk-` prefix (new-api strips it when it echoes a
 * key) — and the credentials of any URL.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets.flatMap((raw) => (raw ? linesOf(raw) : []))) {
    if (s.length < 8) continue;
    out = out.split(s).join(maskToken(s));
    const bare = /^sk-/i.test(s) ? s.slice(3) : undefined;
    if (bare && bare.length >= 8) out = out.split(bare).join(maskToken(bare));
  }
  // Also catch anything that looks like a full gateway key, whatever its origin.
  return stripUrlCredentials(out.replace(/\bsk-[A-Za-z0-9_-]{16,}/g, (m) => maskToken(m)));
}
