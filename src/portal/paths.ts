/** Whether the portal answers `path`: its pages and assets below `base`, and /robots.txt. */
export const isPortalPath = (path: string, base: string): boolean => path === '/robots.txt' || path === base || path.startsWith(`${base}/`);
