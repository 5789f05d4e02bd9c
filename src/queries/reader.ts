/**
 * Who reads, as far as the read side cares: whether they may see what is not published (drafts,
 * archived versions, hidden working copies, bodies in node lists). Every interface (API, tool
 * server, portal) turns its caller into a Reader and reads through the queries, so none of them can
 * forget to hide a draft.
 */
export interface Reader {
  readonly unpublished: boolean;
}

/** Anyone: published versions only. The portal reads as this reader, whatever the request carries. */
export const PUBLIC_READER: Reader = { unpublished: false };
