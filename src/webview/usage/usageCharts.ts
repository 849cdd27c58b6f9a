/**
 * The Usage view's two charts (spend per day, spend per model) with chart.js 4: only the bar
 * controller and the elements it draws are registered, so esbuild leaves the rest out. Colours are the
 * theme's, read from VS Code's CSS variables when drawn (a canvas cannot use var()). No animation.
 */
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip, type TooltipItem } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

export interface Series {
  labels: string[];
  values: number[];
}

function themeColour(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

function options(horizontal: boolean, unit: string) {
  const fg = themeColour('--vscode-foreground', '#cccccc');
  const grid = themeColour('--vscode-widget-border', themeColour('--vscode-panel-border', 'rgba(128,128,128,0.35)'));
  const axis = { ticks: { color: fg }, grid: { color: grid } };
  return {
    indexAxis: horizontal ? ('y' as const) : ('x' as const),
    animation: false as const,
    responsive: true,
    maintainAspectRatio: false,
    plugins: {
      tooltip: {
        callbacks: {
          label: (c: TooltipItem<'bar'>) => `${horizontal ? c.parsed.x : c.parsed.y} ${unit}`,
        },
      },
    },
    scales: { x: { ...axis, beginAtZero: true }, y: { ...axis, beginAtZero: true } },
  };
}

/** One bar chart on a canvas; `update` redraws it with new figures and the theme's colours. */
export class BarChart {
  private chart: Chart<'bar'> | undefined;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly horizontal: boolean,
    private readonly colourVar: string,
  ) {}

  update(s: Series, unit: string): void {
    const colour = themeColour(this.colourVar, themeColour('--vscode-charts-blue', '#3794ff'));
    if (!this.chart) {
      this.chart = new Chart(this.canvas, {
        type: 'bar',
        data: { labels: s.labels, datasets: [{ data: s.values, backgroundColor: colour }] },
        options: options(this.horizontal, unit),
      });
      return;
    }
    this.chart.data.labels = s.labels;
    this.chart.data.datasets[0].data = s.values;
    this.chart.data.datasets[0].backgroundColor = colour;
    this.chart.options = options(this.horizontal, unit);
    this.chart.update('none');
  }
}
