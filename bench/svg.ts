/** A small hand-written SVG line chart (log-log axes), no dependency. */

export interface Series {
  name: string;
  points: { x: number; y: number }[];
}

export interface Panel {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
}

const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (v: number) => (v >= 1000 ? `${(v / 1000).toLocaleString('en', { maximumFractionDigits: 1 })}k` : v >= 10 ? v.toFixed(0) : v.toPrecision(2));

function panelSvg(p: Panel, ox: number, oy: number, w: number, h: number, legendRows: number): string {
  const m = { l: 60, r: 16, t: 30, b: 44 + legendRows * 15 };
  const pts = p.series.flatMap((s) => s.points).filter((pt) => pt.x > 0 && pt.y > 0);
  if (!pts.length) return `<text x="${ox + w / 2}" y="${oy + h / 2}" text-anchor="middle">${esc(p.title)}: no data</text>`;
  const lx = (v: number) => Math.log10(v);
  const [x0, x1] = [Math.floor(lx(Math.min(...pts.map((q) => q.x)))), Math.ceil(lx(Math.max(...pts.map((q) => q.x))))];
  const [y0, y1] = [Math.floor(lx(Math.min(...pts.map((q) => q.y)))), Math.ceil(lx(Math.max(...pts.map((q) => q.y))))];
  const sx = (v: number) => ox + m.l + ((lx(v) - x0) / Math.max(1, x1 - x0)) * (w - m.l - m.r);
  const sy = (v: number) => oy + h - m.b - ((lx(v) - y0) / Math.max(1, y1 - y0)) * (h - m.t - m.b);
  const out: string[] = [];
  out.push(`<text x="${ox + w / 2}" y="${oy + 18}" text-anchor="middle" font-weight="bold">${esc(p.title)}</text>`);
  for (let e = x0; e <= x1; e++) {
    const x = sx(10 ** e);
    out.push(`<line x1="${x}" y1="${oy + m.t}" x2="${x}" y2="${oy + h - m.b}" stroke="#e5e7eb"/>`);
    out.push(`<text x="${x}" y="${oy + h - m.b + 16}" text-anchor="middle">${fmt(10 ** e)}</text>`);
  }
  for (let e = y0; e <= y1; e++) {
    const y = sy(10 ** e);
    out.push(`<line x1="${ox + m.l}" y1="${y}" x2="${ox + w - m.r}" y2="${y}" stroke="#e5e7eb"/>`);
    out.push(`<text x="${ox + m.l - 6}" y="${y + 4}" text-anchor="end">${fmt(10 ** e)}</text>`);
  }
  out.push(`<text x="${ox + w / 2}" y="${oy + h - m.b + 32}" text-anchor="middle">${esc(p.xLabel)}</text>`);
  out.push(`<text transform="translate(${ox + 14} ${oy + h / 2}) rotate(-90)" text-anchor="middle">${esc(p.yLabel)}</text>`);
  p.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const good = s.points.filter((pt) => pt.x > 0 && pt.y > 0);
    out.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${good.map((pt) => `${sx(pt.x).toFixed(1)},${sy(pt.y).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const pt of good) out.push(`<circle cx="${sx(pt.x).toFixed(1)}" cy="${sy(pt.y).toFixed(1)}" r="3" fill="${color}"/>`);
    // the legend: two columns under the x axis label
    const ly = oy + h - m.b + 50 + Math.floor(i / 2) * 15;
    const lx = ox + m.l + (i % 2) * ((w - m.l - m.r) / 2);
    out.push(`<rect x="${lx}" y="${ly - 5}" width="12" height="3" fill="${color}"/>`);
    out.push(`<text x="${lx + 16}" y="${ly}">${esc(s.name)}</text>`);
  });
  return out.join('\n');
}

export function chartSvg(title: string, panels: Panel[]): string {
  const w = 520;
  const h = 400;
  const width = w * panels.length;
  const legendRows = Math.max(...panels.map((p) => Math.ceil(p.series.length / 2)));
  const body = panels.map((p, i) => panelSvg(p, i * w, 24, w, h, legendRows)).join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${h + 30}" font-family="sans-serif" font-size="11">
<rect width="100%" height="100%" fill="white"/>
<text x="${width / 2}" y="16" text-anchor="middle" font-size="13">${esc(title)}</text>
${body}
</svg>
`;
}
