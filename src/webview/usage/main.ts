/**
 * The Usage view's page (bundled by esbuild into dist/usage.js, a browser iife): totals for today, 7
 * and 30 days, spend per day and per model as bar charts, and the table of records (the charts' text
 * alternative), with Refresh and Export CSV. Everything shown comes from the host's `state` message
 * (src/host/usage); its words are the host's, in `data-strings`.
 */
import {
  USAGE_STRING_KEYS,
  parseUsageStrings,
  type UsageHostMessage,
  type UsagePageMessage,
  type UsageStrings,
  type UsageViewState,
} from '../../shared/usageProtocol';
import { fill } from '../../shared/chatStrings';
import { BarChart } from './usageCharts';
import { UsageTable } from './usageTable';

interface VsCodeApi {
  postMessage(msg: UsagePageMessage): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const CLOCK: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' };

export class UsagePage {
  private readonly status = el('p', 'usage-status');
  private readonly estimate: HTMLElement;
  private readonly refresh: HTMLButtonElement;
  private readonly totals = el('dl', 'usage-totals');
  private readonly perDay: BarChart;
  private readonly perModel: BarChart;
  private readonly table: UsageTable;
  private readonly count = el('p', 'usage-count');
  /** the receipts' summary of the gateway's last calls (hidden without receipts) */
  private readonly receipts = el('section', 'usage-receipts');
  private readonly dayTitle: HTMLElement;
  private readonly modelTitle: HTMLElement;
  private state: UsageViewState | undefined;
  private lang = 'en';

  constructor(
    root: HTMLElement,
    private readonly s: UsageStrings,
    private readonly api: VsCodeApi,
  ) {
    const header = el('header', 'usage-header');
    const h1 = el('h1', undefined, s.title);
    this.estimate = el('span', 'usage-estimate', s.estimate);
    this.estimate.hidden = true;
    h1.append(' ', this.estimate);
    this.refresh = el('button', undefined, s.refresh);
    this.refresh.type = 'button';
    this.refresh.addEventListener('click', () => this.api.postMessage({ type: 'refresh' }));
    const exportBtn = el('button', undefined, s.exportCsv);
    exportBtn.type = 'button';
    exportBtn.addEventListener('click', () => this.api.postMessage({ type: 'export', rows: this.table.shown() }));
    const actions = el('div', 'usage-actions');
    actions.append(this.refresh, exportBtn);
    header.append(h1, actions);
    this.status.setAttribute('role', 'status');
    const charts = el('div', 'usage-charts');
    const [dayBox, dayCanvas, dayTitle] = this.chartBox('usage-per-day');
    const [modelBox, modelCanvas, modelTitle] = this.chartBox('usage-per-model');
    this.dayTitle = dayTitle;
    this.modelTitle = modelTitle;
    charts.append(dayBox, modelBox);
    const filterRow = el('div', 'usage-filter');
    const label = el('label', undefined, s.filterLabel);
    const input = el('input');
    input.type = 'search';
    input.id = 'usage-filter';
    input.placeholder = s.filter;
    label.htmlFor = input.id;
    input.addEventListener('input', () => this.table.setFilter(input.value));
    filterRow.append(label, input, this.count);
    this.table = new UsageTable(document, s, { time: (ms) => this.time(ms), int: (n) => this.int(n) }, (n, total) => {
      this.count.textContent = fill(s.shown, String(n), String(total));
    });
    const wrap = el('div', 'usage-table-wrap');
    wrap.append(this.table.element);
    this.receipts.id = 'usage-receipts';
    this.receipts.dataset.testid = 'usage-receipts';
    this.receipts.hidden = true;
    root.append(header, this.status, this.totals, charts, this.receipts, filterRow, wrap);
    // made (empty) in the page, while the host reads: the figures only fill them
    this.perDay = new BarChart(dayCanvas, false, '--vscode-charts-blue');
    this.perModel = new BarChart(modelCanvas, true, '--vscode-charts-purple');
  }

  private chartBox(id: string): [HTMLElement, HTMLCanvasElement, HTMLElement] {
    const box = el('section', 'usage-chart');
    const h2 = el('h2');
    h2.id = `${id}-title`;
    const holder = el('div', 'usage-canvas');
    const canvas = el('canvas');
    canvas.id = id;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-labelledby', h2.id);
    canvas.setAttribute('aria-describedby', 'usage-table-caption');
    canvas.textContent = this.s.chartAlt;
    holder.append(canvas);
    box.append(h2, holder);
    return [box, canvas, h2];
  }

  // one formatter per language: building an Intl formatter per cell costs more than the whole table
  private timeFormat = new Intl.DateTimeFormat('en', { dateStyle: 'short', timeStyle: 'medium' });
  private intFormat = new Intl.NumberFormat('en');
  // the same 24-hour clock as the host's status line ("read at 20:38"), with seconds
  private clockFormat = new Intl.DateTimeFormat('en', CLOCK);

  private time(ms: number): string {
    return this.timeFormat.format(ms);
  }

  private int(n: number): string {
    return this.intFormat.format(n);
  }

  private setLang(lang: string): void {
    if (lang === this.lang) return;
    this.lang = lang;
    try {
      this.timeFormat = new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'medium' });
      this.intFormat = new Intl.NumberFormat(lang);
      this.clockFormat = new Intl.DateTimeFormat(lang, CLOCK);
    } catch {
      /* a language Intl does not know: keep English */
    }
  }

  show(st: UsageViewState): void {
    this.state = st;
    this.setLang(st.lang);
    const estimate = st.source === 'estimate';
    this.estimate.hidden = !estimate;
    const unit = st.unit ? ` (${st.unit})` : '';
    const tag = estimate ? ` · ${this.s.estimate}` : '';
    this.dayTitle.textContent = `${this.s.perDay}${unit}${tag}`;
    this.modelTitle.textContent = `${this.s.perModel}${unit}${tag}`;
    const next = st.nextReadAt ? ` ${fill(this.s.nextRead, this.clockFormat.format(st.nextReadAt))}` : '';
    this.status.textContent = `${st.status}${next}`;
    this.refresh.disabled = st.reading;
    this.totals.replaceChildren();
    for (const [label, x] of [
      [this.s.today, st.totals.today],
      [this.s.last7Days, st.totals.last7Days],
      [this.s.last30Days, st.totals.last30Days],
    ] as const) {
      const box = el('div', 'usage-total');
      const value = estimate && x.text ? `≈ ${x.text}` : x.text;
      box.append(
        el('dt', undefined, label),
        el('dd', 'amount', value),
        el('dd', 'requests', fill(this.s.requests, this.int(x.requests))),
      );
      this.totals.append(box);
    }
    this.perDay.update(
      { labels: st.perDay.map((d) => d.day.slice(5)), values: st.perDay.map((d) => d.amount) },
      st.unit,
    );
    this.perModel.update(
      { labels: st.perModel.map((m) => m.model), values: st.perModel.map((m) => m.amount) },
      st.unit,
    );
    this.showReceipts(st);
    this.table.setRows(st.rows);
  }

  private showReceipts(st: UsageViewState): void {
    const r = st.receipts;
    this.receipts.hidden = !r;
    if (!r) return this.receipts.replaceChildren();
    const list = el('ul');
    for (const line of r.lines) list.append(el('li', line.warn ? 'warn' : undefined, line.text));
    this.receipts.replaceChildren(el('h2', undefined, r.title), list, el('p', 'usage-disclaimer', r.disclaimer));
  }

  current(): UsageViewState | undefined {
    return this.state;
  }
}

function readStrings(root: HTMLElement): UsageStrings {
  let raw: unknown;
  try {
    raw = JSON.parse(root.dataset.strings ?? '');
  } catch {
    raw = undefined;
  }
  return parseUsageStrings(raw) ?? (Object.fromEntries(USAGE_STRING_KEYS.map((k) => [k, k])) as UsageStrings);
}

const root = document.getElementById('usage');
if (root) {
  const api = acquireVsCodeApi();
  const page = new UsagePage(root, readStrings(root), api);
  window.addEventListener('message', (ev: MessageEvent<UsageHostMessage>) => {
    const msg = ev.data;
    if (msg && typeof msg === 'object' && msg.type === 'state' && typeof msg.json === 'string')
      page.show(JSON.parse(msg.json) as UsageViewState);
  });
  api.postMessage({ type: 'ready' });
}
