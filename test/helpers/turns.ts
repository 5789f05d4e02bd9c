/**
 * Runs `work` and counts the turns of the event loop other work got meanwhile (a callback that
 * schedules itself with setImmediate): work done in one piece lets it run about once.
 */
export async function withTurns<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let counting = true;
  const count = () => {
    turns++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  try {
    return { result: await work(), turns };
  } finally {
    counting = false;
  }
}
