/**
 * A text built by appending pieces, as `out += piece` builds it, for the conversions that may append
 * a piece per character or two of a line (a line of `<a <a <a …`, of `a_b_`, of `x |`). A string
 * appended to a million times is a chain of a million strings that stays alive until the end, and
 * the collector walks all of it each time it runs: a line of 2 MB took 5–10 times as long as prose
 * and grew faster than its size. Past the first few pieces they are kept in a list and joined into
 * one string every PIECES pieces, so what stays alive is a few long strings.
 */
export class Pieces {
  private head = '';
  private count = 0;
  private size = 0;
  private readonly pieces: string[] = [];
  private readonly chunks: string[] = [];

  /** Whether nothing was added yet (or only empty pieces). */
  get empty(): boolean {
    return this.size === 0;
  }

  add(piece: string): void {
    this.size += piece.length;
    if (this.count < FEW) {
      this.head += piece;
      this.count++;
      return;
    }
    this.pieces.push(piece);
    if (this.pieces.length === PIECES) {
      this.chunks.push(this.pieces.join(''));
      this.pieces.length = 0;
    }
  }

  /** The text, with `rest` after it. */
  text(rest = ''): string {
    if (this.count < FEW) return this.head + rest;
    return this.head + this.chunks.join('') + this.pieces.join('') + rest;
  }
}

/** Pieces appended to a string as usual: a line of prose has a handful. */
const FEW = 32;
/** Pieces joined at a time past the first FEW. */
const PIECES = 1024;
