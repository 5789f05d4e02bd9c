/** The value of one series in Prometheus' text format, or undefined when it is absent. */
export function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(/,(?=\w+=")/);
    if (wanted.every((w) => have.includes(w))) return Number(m[3]);
  }
  return undefined;
}

/** One series of the server at `url` as its /metrics says it now; 0 when it is absent (a counter not yet counted). */
export async function metric(url: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return series(await (await fetch(new URL('/metrics', url))).text(), name, labels) ?? 0;
}
