/**
 * Token masking (spec 2.1): the first 6 characters, `...`, then the last 4.
 * Short values are masked completely so nothing useful leaks.
 */
export function maskToken(token: string | undefined | null): string {
  if (!token) return '(none)';
  const t = token.trim();
  if (t.length <= 12) return `${t.slice(0, Math.min(3, Math.max(0, t.length - 8)))}...`;
  return `${t.slice(0, 6)}...${t.slice(-4)}`;
}

/** Replaces every occurrence of each secret in `text` with its masked form. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 8) out = out.split(s).join(maskToken(s));
  }
  // Also catch anything that looks like a full gateway key, whatever its origin.
  return out.replace(/\bsk-[A-Za-z0-9_-]{16,}/g, (m) => maskToken(m));
}
