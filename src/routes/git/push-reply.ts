/** The most data one side-band-64k packet carries: 65520 less the length and the band byte. */
const BAND_DATA = 65515;

function pkt(body: Buffer): Buffer {
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
}

/** What a refused command's `ng` line can hold: one line, no control characters. */
const oneLine = (text: string) => text.replace(/[\x00-\x1f\x7f]+/g, ' ').slice(0, 1000);

/**
 * The answer to a push (receive-pack's report-status), with progress lines that git prints as
 * `remote: …`: inside side-band-64k when the client asked for it (band 2 for progress, band 1 for
 * the report), else the report alone. Built whole, then sent: a push's answer is a few lines.
 */
export class PushReply {
  private readonly out: Buffer[] = [];
  private readonly sideBand: boolean;
  private readonly report: boolean;
  private readonly quiet: boolean;

  constructor(capabilities: ReadonlySet<string>) {
    this.sideBand = capabilities.has('side-band-64k');
    this.report = capabilities.has('report-status');
    this.quiet = capabilities.has('quiet');
  }

  /** A line for the pusher's terminal (dropped without side-band, and for `quiet` unless it is a problem). */
  say(line: string, problem = false): void {
    if (!this.sideBand || (this.quiet && !problem)) return;
    this.band(2, Buffer.from(`${line.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, ' ')}\n`));
  }

  /** The report: whether the pack was unpacked, then each command's result; ends the answer. */
  finish(unpack: string | null, results: ReadonlyArray<{ ref: string; error: string | null }>): Buffer {
    if (this.report) {
      const lines = [pkt(Buffer.from(`unpack ${unpack === null ? 'ok' : oneLine(unpack)}\n`))];
      for (const r of results) lines.push(pkt(Buffer.from(r.error === null ? `ok ${r.ref}\n` : `ng ${r.ref} ${oneLine(r.error)}\n`)));
      lines.push(Buffer.from('0000'));
      const report = Buffer.concat(lines);
      if (this.sideBand) this.band(1, report);
      else this.out.push(report);
    }
    if (this.sideBand) this.out.push(Buffer.from('0000'));
    return Buffer.concat(this.out);
  }

  private band(band: number, data: Buffer): void {
    for (let at = 0; at < data.length; at += BAND_DATA) this.out.push(pkt(Buffer.concat([Buffer.from([band]), data.subarray(at, at + BAND_DATA)])));
  }
}
