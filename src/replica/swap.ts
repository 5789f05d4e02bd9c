import { adoptCommit, type Adopted, type AdoptTarget } from '../store/adopt-commit.ts';

/** What a replica swaps when its primary's branch moves. */
export type SwapTarget = AdoptTarget;

/** What one swap changed. */
export type Swapped = Adopted;

/**
 * Serves `commit` (fetched into the repository, not yet on `main`) in place of the current head,
 * as an accepted push is adopted: see adoptCommit.
 */
export function swapTo(commit: string, target: SwapTarget): Promise<Swapped> {
  return adoptCommit(commit, target, 'replica: follow the primary');
}
