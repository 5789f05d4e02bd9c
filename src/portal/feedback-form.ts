import { COMMENT_MAX } from '../schemas/feedback.ts';
import { html, type Html } from './html.ts';
import { messagesFor } from './i18n/messages.ts';
import type { Links } from './site.ts';

/** The fragment the reader is sent back to once feedback is taken: the thanks, which the stylesheet shows (`:target`) in place of the form. */
export const SENT_FRAGMENT = 'feedback-sent';

/** The address the form posts to: below the page's own (`{portal}/{version}/{slug}/feedback`). */
export const feedbackAction = (links: Links, slug: string) => `${links.base}/${links.ref}/${slug}/feedback`;

/**
 * "Was this helpful?" under a page: yes or no and an optional comment, a plain form that posts to
 * the portal (no script: the page's policy allows forms to this origin only). The portal sends the
 * reader back to the page at `#feedback-sent`, and the stylesheet shows the thanks that fragment
 * names in place of the form: the page itself stays one page, cached as it is for everyone.
 */
export function feedbackForm(links: Links, slug: string, language: string): Html {
  const t = messagesFor(language);
  return html`<section class="feedback" id="feedback" aria-labelledby="feedback-question">
<p class="feedback-thanks" id="${SENT_FRAGMENT}" role="status" tabindex="-1">${t('feedback.thanks')}</p>
<form class="feedback-form" method="post" action="${feedbackAction(links, slug)}">
<input type="hidden" name="lang" value="${language}">
<fieldset class="feedback-vote">
<legend id="feedback-question">${t('feedback.question')}</legend>
<label><input type="radio" name="helpful" value="yes" required> ${t('feedback.yes')}</label>
<label><input type="radio" name="helpful" value="no"> ${t('feedback.no')}</label>
</fieldset>
<label class="feedback-comment" for="feedback-comment">${t('feedback.comment')}</label>
<textarea id="feedback-comment" name="comment" rows="3" maxlength="${COMMENT_MAX}"></textarea>
<button type="submit">${t('feedback.send')}</button>
</form>
</section>`;
}
