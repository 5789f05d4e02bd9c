/** What a search by relevance answers (SearchIndex.ranked), for the API, the portal and the tool server alike. */

export interface RankOptions {
  /** Hits to return, 1–50. */
  limit: number;
  /** Hits of better rank to skip ("more results"). */
  offset: number;
}

/** The section of a topic a hit's passage sits under: its heading's text and the id the portal gives it (`…/topic#anchor`). */
export interface HitHeading {
  text: string;
  anchor: string;
}

export interface RankedHit {
  slug: string;
  title: string;
  summary: string;
  /** The language of the translation that matched (the one searched). */
  language: string;
  /** Relevance, higher is better; comparable within one answer only. */
  score: number;
  /** Plain text around the passage that matched best. */
  snippet: string;
  /** The matched words in `snippet`, as [start, end) offsets in UTF-16 code units (JavaScript string indexes), ascending and apart. */
  highlights: Array<[number, number]>;
  /** The section the passage is in; null when the passage is before the first heading, or the match is in the title or summary only. */
  heading: HitHeading | null;
  /** The node's ancestors, the root first, titled in the searched language (the version's primary language where a node has none). */
  breadcrumbs: Array<{ slug: string; title: string }>;
}

export interface RankedResult {
  hits: RankedHit[];
  /** How many topics matched at all (some words are enough); a lower bound when `partial`. */
  total: number;
  /** A query word so short that it starts very many terms was looked up in the first of them only: some matches may be missing, and `total` is a lower bound. */
  partial: boolean;
  /** When nothing matched: the query with its words replaced by the version's nearest terms, when that finds something ("did you mean"). */
  suggestion?: string;
}
