/** File names for saved results: time, then a slug of the prompt. Pure, so it is tested in Node. */

export function slugify(text: string, max = 40): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max)
    .replace(/-+$/g, '');
  return slug || 'untitled';
}

/** e.g. `20261122-163102-a-lighthouse-at-dusk.png` (local time). */
export function mediaFileName(prompt: string, ext: string, date: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
  return `${stamp}-${slugify(prompt)}${ext.startsWith('.') ? ext : `.${ext}`}`;
}
