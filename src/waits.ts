/**
 * Whether `work` settles (resolves or rejects) within `ms`: a caller that may wait that long for it,
 * and no longer, goes on either way while `work` goes on. The timer is cleared as soon as it settles.
 */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
