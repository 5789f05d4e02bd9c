/**
 * Pages load their own stylesheet and script only (no inline code, nothing from elsewhere but
 * images over https); the script talks to this service alone (the PDF bundle, its fonts, the tree).
 * Its own module: the router's pages and the reader-signal refusals both send it, and the router
 * imports those.
 */
export const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https:; font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'";
