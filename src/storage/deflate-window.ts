/**
 * The zlib window to deflate `length` bytes with: the smallest (2^9 to 2^15 bytes) that holds the
 * whole input and zlib's lookahead of 262 bytes, so that every match the full window would find is
 * found, and the deflated data are those of the full window byte for byte; only the stream's header,
 * which states the window, differs. git and every inflater read any window.
 *
 * Why not always the full window: zlib allocates its state by the window (about 256 KB at 2^15),
 * and each call has a new one. A state that large is mapped afresh by the allocator and its pages
 * faulted in until the allocator learns to keep it: on the bench machine a 2 KB object took about
 * 150 µs to deflate in a fresh process and 20–35 µs in a warm one, against 15–25 µs with a window
 * its size. A write deflates several such objects, an import thousands.
 */
export const windowBitsFor = (length: number): number => Math.min(15, Math.max(9, Math.ceil(Math.log2(length + 262))));
