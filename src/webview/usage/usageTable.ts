/**
 * The Usage view's table of records: the charts' text alternative. Sortable by any column (a button in
 * each header, aria-sort says the order), filtered by a text field (model or group), every cell plain
 * text (textContent, never HTML).
 */
import type { UsageRow, UsageStrings } from '../../shared/usageProtocol';

type Key =
  | 'time'
  | 'model'
  | 'tokensIn'
  | 'tokensOut'
  | 'cost'
  | 'latencyMs'
  | 'firstResponseMs'
  | 'stream'
  | 'group'
  | 'fromHere'
  | 'receipt';

interface Column {
  key: Key;
  label: (s: UsageStrings) => string;
  numeric: boolean;
  text: (r: UsageRow, s: UsageStrings, fmt: Formats) => string;
  /** the cell's hover text and class, where it has them */
  decorate?: (r: UsageRow, td: HTMLTableCellElement) => void;
}

export interface Formats {
  time: (ms: number) => string;
  int: (n: number) => string;
}

const num = (n: number | undefined, f: Formats) => (n === undefined ? '' : f.int(n));

const COLUMNS: Column[] = [
  { key: 'time', label: (s) => s.colTime, numeric: false, text: (r, _s, f) => f.time(r.time) },
  { key: 'model', label: (s) => s.colModel, numeric: false, text: (r) => r.model },
  { key: 'tokensIn', label: (s) => s.colIn, numeric: true, text: (r, _s, f) => num(r.tokensIn, f) },
  { key: 'tokensOut', label: (s) => s.colOut, numeric: true, text: (r, _s, f) => num(r.tokensOut, f) },
  { key: 'cost', label: (s) => s.colCost, numeric: true, text: (r, s) => (r.error && !r.cost ? s.error : r.costText) },
  { key: 'latencyMs', label: (s) => s.colLatency, numeric: true, text: (r) => r.latencyText },
  { key: 'firstResponseMs', label: (s) => s.colFirst, numeric: true, text: (r, _s, f) => ms(r.firstResponseMs, f) },
  { key: 'stream', label: (s) => s.colStream, numeric: false, text: (r, s) => (r.stream ? s.yes : s.no) },
  { key: 'group', label: (s) => s.colGroup, numeric: false, text: (r) => r.group },
  { key: 'fromHere', label: (s) => s.colHere, numeric: false, text: (r) => (r.fromHere ? '✓' : '') },
  {
    key: 'receipt',
    label: (s) => s.colReceipt,
    numeric: false,
    text: (r) => r.receipt?.mark ?? '',
    decorate: (r, td) => {
      if (!r.receipt) return;
      td.title = r.receipt.title;
      td.setAttribute('aria-label', r.receipt.title);
      td.className = `receipt receipt-${r.receipt.state}`;
    },
  },
];

/** What a column sorts by: the receipt by its state (inconsistent first when ascending). */
function sortValue(r: UsageRow, key: Key): string | number | boolean | undefined {
  if (key === 'receipt') return r.receipt && ['inconsistent', 'not-checkable', 'consistent'].indexOf(r.receipt.state);
  return r[key];
}

function ms(n: number | undefined, f: Formats): string {
  return n === undefined ? '' : `${f.int(n)} ms`;
}

function compare(a: UsageRow, b: UsageRow, key: Key): number {
  const x = sortValue(a, key);
  const y = sortValue(b, key);
  if (x === y) return 0;
  if (x === undefined) return 1;
  if (y === undefined) return -1;
  if (typeof x === 'string' && typeof y === 'string') return x.localeCompare(y);
  return Number(x) - Number(y);
}

/** Rows in the first paint (several screens); the rest are added a batch per task right after. */
const FIRST_ROWS = 60;
const MORE_ROWS = 100;

export class UsageTable {
  readonly element: HTMLTableElement;
  private readonly head: HTMLTableRowElement;
  private readonly body: HTMLTableSectionElement;
  private rows: UsageRow[] = [];
  private sort: { key: Key; dir: 1 | -1 } = { key: 'time', dir: -1 };
  private filter = '';
  /** indices into `rows` of what is shown, in the order shown */
  private shownIdx: number[] = [];
  /** a new render stops the rows an older one is still adding */
  private generation = 0;

  constructor(
    private readonly doc: Document,
    private readonly s: UsageStrings,
    private readonly fmt: Formats,
    private readonly onShown: (shown: number, total: number) => void,
  ) {
    this.element = doc.createElement('table');
    this.element.className = 'usage-table';
    this.element.id = 'usage-table';
    const caption = doc.createElement('caption');
    caption.id = 'usage-table-caption';
    caption.textContent = s.records;
    this.element.append(caption);
    const thead = doc.createElement('thead');
    this.head = doc.createElement('tr');
    thead.append(this.head);
    this.body = doc.createElement('tbody');
    this.element.append(thead, this.body);
    for (const c of COLUMNS) {
      const th = doc.createElement('th');
      th.scope = 'col';
      if (c.numeric) th.className = 'num';
      const b = doc.createElement('button');
      b.type = 'button';
      b.textContent = c.label(s);
      b.title = s.sortHint;
      b.dataset.key = c.key;
      b.addEventListener('click', () => this.sortBy(c.key));
      th.append(b);
      this.head.append(th);
    }
  }

  setRows(rows: UsageRow[]): void {
    this.rows = rows;
    this.render();
  }

  setFilter(text: string): void {
    this.filter = text.trim().toLowerCase();
    this.render();
  }

  sortBy(key: Key): void {
    this.sort =
      this.sort.key === key ? { key, dir: this.sort.dir === 1 ? -1 : 1 } : { key, dir: key === 'time' ? -1 : 1 };
    this.render();
  }

  /** What is shown, as indices into the rows the host sent (for Export CSV). */
  shown(): number[] {
    return this.shownIdx;
  }

  private render(): void {
    const f = this.filter;
    const idx: number[] = [];
    this.rows.forEach((r, i) => {
      if (!f || r.model.toLowerCase().includes(f) || r.group.toLowerCase().includes(f)) idx.push(i);
    });
    const { key, dir } = this.sort;
    idx.sort((a, b) => dir * compare(this.rows[a], this.rows[b], key) || a - b);
    this.shownIdx = idx;
    for (const th of Array.from(this.head.children)) {
      const k = (th.firstElementChild as HTMLElement).dataset.key;
      if (k === key) th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    }
    const gen = ++this.generation;
    const first = this.doc.createDocumentFragment();
    for (const i of idx.slice(0, FIRST_ROWS)) first.append(this.rowElement(this.rows[i]));
    if (!idx.length) {
      const tr = this.doc.createElement('tr');
      const td = this.doc.createElement('td');
      td.colSpan = COLUMNS.length;
      td.textContent = this.s.noRecords;
      tr.append(td);
      first.append(tr);
    }
    this.body.replaceChildren(first);
    // The rows below the first screens follow a batch per frame, each after the frame has been drawn:
    // a timer alone ran every batch before the first frame (timers outrank rendering), so the first
    // paint waited for the whole table.
    const afterPaint = (fn: () => void) => requestAnimationFrame(() => setTimeout(fn, 0));
    const more = (from: number) => {
      if (gen !== this.generation || from >= idx.length) return;
      const frag = this.doc.createDocumentFragment();
      for (const i of idx.slice(from, from + MORE_ROWS)) frag.append(this.rowElement(this.rows[i]));
      this.body.append(frag);
      afterPaint(() => more(from + MORE_ROWS));
    };
    afterPaint(() => more(FIRST_ROWS));
    this.onShown(idx.length, this.rows.length);
  }

  private rowElement(r: UsageRow): HTMLTableRowElement {
    const tr = this.doc.createElement('tr');
    if (r.error) tr.className = 'error';
    for (const c of COLUMNS) {
      const td = this.doc.createElement('td');
      if (c.numeric) td.className = 'num';
      td.textContent = c.text(r, this.s, this.fmt);
      c.decorate?.(r, td);
      tr.append(td);
    }
    return tr;
  }
}
