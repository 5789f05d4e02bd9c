/** The one branch of the content repository. */
export const BRANCH_NAME = 'main';
export const BRANCH = `refs/heads/${BRANCH_NAME}`;
