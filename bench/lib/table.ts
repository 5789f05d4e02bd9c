/** One line of the results table: a figure, its same-run baseline, the ratio and the target. */
export interface Row {
  /** P1…P8 and M1…M6, with a letter for the extra lines of a scenario (P1b). */
  id: string;
  /** The shape of content it ran on (flat, realistic, many-versions ×N). */
  shape?: string;
  scenario: string;
  measured: number | null;
  unit: string;
  baseline: number | null;
  baselineUnit?: string;
  /** What the baseline is (bare Koa, git fast-import…). */
  baselineLabel: string;
  /** measured / baseline, when both exist. */
  ratio: number | null;
  /** The target in words, e.g. "≥ 0.9× baseline". */
  target: string;
  /** true / false; null for lines that only inform (no target), or when skipped. */
  met: boolean | null;
  /** A count: printed without decimals. */
  count?: boolean;
  note?: string;
  error?: string;
}

const num = (v: number): string => {
  if (!Number.isFinite(v)) return String(v);
  const abs = Math.abs(v);
  if (abs >= 1000) return Math.round(v).toLocaleString('en-US');
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  return v.toFixed(2);
};

export const formatValue = (v: number | null, unit: string) => (v === null ? '—' : `${num(v)} ${unit}`.trim());

/** The table; with rows of more than one shape, a shape column after the id. */
export function renderTable(rows: readonly Row[]): string {
  const shaped = new Set(rows.map((r) => r.shape ?? '')).size > 1;
  const header = ['#', ...(shaped ? ['shape'] : []), 'scenario', 'measured', 'baseline', 'ratio', 'target', 'met'];
  const lines = rows.map((r) => [
    r.id,
    ...(shaped ? [r.shape ?? ''] : []),
    r.scenario,
    r.error ? 'ERROR' : r.count && r.measured !== null ? `${r.measured.toLocaleString('en-US')} ${r.unit}` : formatValue(r.measured, r.unit),
    r.baseline === null ? '—' : `${formatValue(r.baseline, r.baselineUnit ?? r.unit)} (${r.baselineLabel})`,
    r.ratio === null ? '—' : `${r.ratio >= 10 ? r.ratio.toFixed(1) : r.ratio.toFixed(2)}×`,
    r.target,
    r.error ? 'error' : r.met === null ? 'info' : r.met ? 'yes' : '**NO**',
  ]);
  const escape = (s: string) => s.replace(/\|/g, '\\|');
  return [header, header.map(() => '---'), ...lines].map((cells) => `| ${cells.map(escape).join(' | ')} |`).join('\n');
}
