/**
 * The Usage view's two charts (spend per day, spend per model) with chart.js 4: only the bar
 * controller and the elements it draws are registered, so esbuild leaves the rest out. Colours are the
 * theme's, read from VS Code's CSS variables (a canvas cannot use var()). No animation.
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

interface Theme {
  fg: string;
  grid: string;
  bar: string;
}

function theme(barVar: string): Theme {
  return {
    fg: themeColour('--vscode-foreground', '#cccccc'),
    grid: themeColour('--vscode-widget-border', themeColour('--vscode-panel-border', 'rgba(128,128,128,0.35)')),
    bar: themeColour(barVar, themeColour('--vscode-charts-blue', '#3794ff')),
  };
}

/**
 * One bar chart on a canvas. The theme's colours are read when it is made and when VS Code changes
 * the theme (the body's class), not on every update: reading computed styles forces a style pass.
 */
export class BarChart {
  private readonly chart: Chart<'bar'>;
  private unit = '';

  constructor(canvas: HTMLCanvasElement, horizontal: boolean, barVar: string) {
    const t = theme(barVar);
    const axis = () => ({ ticks: { color: t.fg }, grid: { color: t.grid }, beginAtZero: true });
    this.chart = new Chart(canvas, {
      type: 'bar',
      data: { labels: [], datasets: [{ data: [], backgroundColor: t.bar }] },
      options: {
        indexAxis: horizontal ? 'y' : 'x',
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: {
          tooltip: {
            callbacks: {
              label: (c: TooltipItem<'bar'>) => `${horizontal ? c.parsed.x : c.parsed.y} ${this.unit}`,
            },
          },
        },
        scales: { x: axis(), y: axis() },
      },
    });
    new MutationObserver(() => {
      this.paint(theme(barVar));
      this.chart.update();
    }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  }

  private paint(t: Theme): void {
    const o = this.chart.options;
    for (const axis of [o.scales?.x, o.scales?.y]) {
      if (!axis) continue;
      axis.ticks = { ...axis.ticks, color: t.fg };
      axis.grid = { ...axis.grid, color: t.grid };
    }
    this.chart.data.datasets[0].backgroundColor = t.bar;
  }

  update(s: Series, unit: string): void {
    this.unit = unit;
    this.chart.data.labels = s.labels;
    this.chart.data.datasets[0].data = s.values;
    this.chart.update('none');
  }
}
