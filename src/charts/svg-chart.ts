/**
 * Small, dependency-free SVG charts (the demo's HTML report, the dashboard): line or stacked-area series over time,
 * with axes, ticks, a legend and shaded, labelled bands (the fault windows).
 */

export interface ChartSeries {
  readonly name: string;
  readonly color: string;
  /** [x, y] points, x ascending; NaN y leaves a gap in a line. */
  readonly points: ReadonlyArray<readonly [number, number]>;
}

export interface ChartBand {
  readonly x0: number;
  readonly x1: number;
  readonly label: string;
  readonly color: string;
}

export interface ChartSpec {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly ChartSeries[];
  readonly bands?: readonly ChartBand[];
  /** Stack the series as areas (shares summing to 1, say). @default false */
  readonly stacked?: boolean;
  readonly xMax?: number;
  readonly yMax?: number;
  /** Formats y tick labels. @default 3 significant digits */
  readonly yFormat?: (y: number) => string;
  /** Log scale on y (positive values only). @default false */
  readonly yLog?: boolean;
  readonly width?: number;
  readonly height?: number;
}

/** Series colours, distinguishable and colour-blind friendly (Tableau 10). */
export const SERIES_COLORS: readonly string[] = Object.freeze([
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#b07aa1',
  '#76b7b2',
  '#edc948',
  '#9c755f',
  '#e15759',
]);

const MARGIN = { top: 54, right: 16, bottom: 46, left: 64 };

/** Escapes text for XML/HTML element content and attribute values. */
export function escapeXml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** About `count` round tick values (1, 2, 5 × 10^n steps) covering 0..max. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  const raw = max / count;
  const magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  if (ticks[ticks.length - 1]! < max) ticks.push(Number((ticks[ticks.length - 1]! + step).toPrecision(12)));
  return ticks;
}

/** Powers of ten (with 2 and 5 between when few) spanning min..max, for a log axis. */
export function logTicks(min: number, max: number): number[] {
  const lo = Math.floor(Math.log10(Math.max(min, 1e-3)));
  const hi = Math.ceil(Math.log10(Math.max(max, min * 10, 1e-2)));
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e++) {
    const base = Math.pow(10, e);
    ticks.push(Number(base.toPrecision(6)));
    if (hi - lo <= 3 && e < hi)
      ticks.push(Number((2 * base).toPrecision(6)), Number((5 * base).toPrecision(6)));
  }
  return ticks;
}

function defaultFormat(v: number): string {
  if (v === 0) return '0';
  if (Math.abs(v) >= 1000) return `${Number((v / 1000).toPrecision(3))}k`;
  return String(Number(v.toPrecision(3)));
}

function f(n: number): string {
  return Number.isFinite(n) ? n.toFixed(1) : '0';
}

/** One chart as a standalone `<svg>` element (string). */
export function renderChart(spec: ChartSpec): string {
  const width = spec.width ?? 1000;
  const height = spec.height ?? 280;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const fmt = spec.yFormat ?? defaultFormat;

  let xMax = spec.xMax ?? 0;
  let yMaxData = 0;
  let yMinPositive = Infinity;
  for (const s of spec.series) {
    for (const [x, y] of s.points) {
      if (x > xMax) xMax = x;
      if (Number.isFinite(y) && y > 0 && y < yMinPositive) yMinPositive = y;
    }
  }
  if (spec.stacked) {
    const n = Math.max(0, ...spec.series.map((s) => s.points.length));
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (const s of spec.series) sum += finiteOr0(s.points[i]?.[1]);
      yMaxData = Math.max(yMaxData, sum);
    }
  } else {
    for (const s of spec.series)
      for (const [, y] of s.points) if (Number.isFinite(y)) yMaxData = Math.max(yMaxData, y);
  }
  xMax = xMax > 0 ? xMax : 1;

  let yTicks: number[];
  let yScale: (y: number) => number;
  if (spec.yLog) {
    yTicks = logTicks(Number.isFinite(yMinPositive) ? yMinPositive : 0.1, spec.yMax ?? (yMaxData || 1));
    const lo = Math.log10(yTicks[0]!);
    const hi = Math.log10(yTicks[yTicks.length - 1]!);
    yScale = (y) =>
      MARGIN.top + plotH - ((Math.log10(Math.max(y, yTicks[0]!)) - lo) / (hi - lo || 1)) * plotH;
  } else {
    yTicks = niceTicks(spec.yMax ?? (yMaxData || 1));
    const top = yTicks[yTicks.length - 1]!;
    yScale = (y) => MARGIN.top + plotH - (Math.min(y, top) / top) * plotH;
  }
  const xTicks = niceTicks(xMax, 10).filter((t) => t <= xMax + 1e-9);
  const xScale = (x: number): number => MARGIN.left + (x / xMax) * plotW;

  const out: string[] = [];
  out.push(
    `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeXml(spec.title)}">`,
  );
  out.push(`<title>${escapeXml(spec.title)}</title>`);
  out.push(`<text class="chart-title" x="${MARGIN.left}" y="18">${escapeXml(spec.title)}</text>`);

  // fault windows: behind line charts, in front (translucent) of opaque stacked areas
  const bandMarkup: string[] = ['<g class="bands">'];
  for (const band of spec.bands ?? []) {
    const x0 = xScale(Math.max(0, band.x0));
    const x1 = xScale(Math.min(xMax, band.x1));
    if (x1 <= x0) continue;
    const opacity = spec.stacked ? 0.07 : 0.16;
    bandMarkup.push(
      `<rect class="fault-window" x="${f(x0)}" y="${MARGIN.top}" width="${f(x1 - x0)}" height="${plotH}" fill="${band.color}" fill-opacity="${opacity}" stroke="${band.color}" stroke-opacity="0.6" stroke-dasharray="4 3"><title>${escapeXml(band.label)}</title></rect>`,
    );
    bandMarkup.push(
      `<text class="band-label" x="${f((x0 + x1) / 2)}" y="${MARGIN.top - 6}" text-anchor="middle" style="fill:${band.color}">${escapeXml(band.label)}</text>`,
    );
  }
  bandMarkup.push('</g>');
  if (!spec.stacked) out.push(...bandMarkup);

  // grid and axes
  out.push('<g class="axis y-axis">');
  for (const t of yTicks) {
    const y = yScale(t);
    out.push(
      `<line class="grid" x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${f(y)}" y2="${f(y)}"/>`,
    );
    out.push(`<text x="${MARGIN.left - 6}" y="${f(y + 4)}" text-anchor="end">${escapeXml(fmt(t))}</text>`);
  }
  out.push(
    `<text class="axis-label" transform="translate(14 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(spec.yLabel)}</text>`,
  );
  out.push('</g>');
  out.push('<g class="axis x-axis">');
  out.push(
    `<line class="axis-line" x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH}"/>`,
  );
  for (const t of xTicks) {
    const x = xScale(t);
    out.push(
      `<line class="tick" x1="${f(x)}" x2="${f(x)}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH + 5}"/>`,
    );
    out.push(
      `<text x="${f(x)}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${escapeXml(defaultFormat(t))}</text>`,
    );
  }
  out.push(
    `<text class="axis-label" x="${MARGIN.left + plotW / 2}" y="${height - 6}" text-anchor="middle">${escapeXml(spec.xLabel)}</text>`,
  );
  out.push('</g>');

  // data
  out.push('<g class="series">');
  if (spec.stacked) {
    const base: number[] = [];
    for (const s of spec.series) {
      const upper: string[] = [];
      const lower: string[] = [];
      s.points.forEach(([x, y], i) => {
        const b = base[i] ?? 0;
        const top = b + finiteOr0(y);
        upper.push(`${f(xScale(x))},${f(yScale(top))}`);
        lower.push(`${f(xScale(x))},${f(yScale(b))}`);
        base[i] = top;
      });
      if (upper.length === 0) continue;
      const d = `M${upper.join(' L')} L${lower.reverse().join(' L')} Z`;
      out.push(
        `<path class="area" data-series="${escapeXml(s.name)}" d="${d}" fill="${s.color}" fill-opacity="0.85" stroke="${s.color}" stroke-width="0.5"/>`,
      );
    }
  } else {
    for (const s of spec.series) {
      const segments: string[] = [];
      let current: string[] = [];
      for (const [x, y] of s.points) {
        if (!Number.isFinite(y)) {
          if (current.length) segments.push(current.join(' L'));
          current = [];
          continue;
        }
        current.push(`${f(xScale(x))},${f(yScale(y))}`);
      }
      if (current.length) segments.push(current.join(' L'));
      if (segments.length === 0) continue;
      out.push(
        `<path class="line" data-series="${escapeXml(s.name)}" d="M${segments.join(' M')}" fill="none" stroke="${s.color}" stroke-width="1.8" stroke-linejoin="round"/>`,
      );
    }
  }
  out.push('</g>');
  if (spec.stacked) out.push(...bandMarkup);

  // legend, top right, right-aligned entries
  out.push('<g class="legend">');
  let lx = width - MARGIN.right;
  for (const s of [...spec.series].reverse()) {
    const textW = s.name.length * 6.6;
    lx -= textW;
    out.push(`<text x="${f(lx)}" y="19">${escapeXml(s.name)}</text>`);
    lx -= 16;
    out.push(`<rect class="swatch" x="${f(lx)}" y="10" width="11" height="11" rx="2" fill="${s.color}"/>`);
    lx -= 14;
  }
  out.push('</g>');
  out.push('</svg>');
  return out.join('\n');
}

function finiteOr0(v: number | undefined): number {
  return v !== undefined && Number.isFinite(v) ? v : 0;
}
