import { html, type Html } from './html.ts';
import { displayLanguage, type Translate } from './i18n/messages.ts';

/**
 * The note above a translation whose primary-language page changed since it was written (the
 * topic's `outdated`), so a reader knows the other page may say more: "The English page has
 * changed since this translation was written." In the page's language, naming the primary
 * language as that language says it. Nothing for a page that is up to date, or is the primary one.
 */
export function outdatedNotice(topic: { outdated?: true }, primaryLanguage: string, pageLanguage: string, t: Translate): Html | '' {
  if (topic.outdated !== true) return '';
  return html`<p class="notice outdated" role="note">${t('outdated.notice', { language: displayLanguage(primaryLanguage, pageLanguage) })}</p>`;
}
