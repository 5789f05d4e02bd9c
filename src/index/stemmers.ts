import { stemmer as arabic } from '@orama/stemmers/arabic';
import { stemmer as danish } from '@orama/stemmers/danish';
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as english } from '@orama/stemmers/english';
import { stemmer as finnish } from '@orama/stemmers/finnish';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as greek } from '@orama/stemmers/greek';
import { stemmer as hungarian } from '@orama/stemmers/hungarian';
import { stemmer as indonesian } from '@orama/stemmers/indonesian';
import { stemmer as irish } from '@orama/stemmers/irish';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as lithuanian } from '@orama/stemmers/lithuanian';
import { stemmer as norwegian } from '@orama/stemmers/norwegian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as romanian } from '@orama/stemmers/romanian';
import { stemmer as russian } from '@orama/stemmers/russian';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { stemmer as swedish } from '@orama/stemmers/swedish';
import { stemmer as turkish } from '@orama/stemmers/turkish';
import { stemmer as ukrainian } from '@orama/stemmers/ukrainian';

/**
 * Snowball stemmers by language (the part of the code before any `-`): "reminders" and "reminder"
 * share the stem "remind", so a search for one finds the other. A language without one here
 * (Japanese, Chinese, Korean, …) is matched on whole words and character pairs only.
 */
const BY_LANGUAGE: Record<string, (word: string) => string> = {
  ar: arabic, da: danish, nl: dutch, en: english, fi: finnish, fr: french, de: german, el: greek, hu: hungarian, id: indonesian,
  ga: irish, it: italian, lt: lithuanian, no: norwegian, nb: norwegian, nn: norwegian, pt: portuguese, ro: romanian, ru: russian,
  es: spanish, sv: swedish, tr: turkish, uk: ukrainian,
};

/** Words longer than this are not stemmed: no language's inflection is, and a stemmer's cost grows with the word. */
const MAX_STEMMED = 40;

/** The stemmer of `language` (a language code), or null when it has none. It takes folded words (lower case, no accents). */
export function stemmerFor(language: string): ((word: string) => string) | null {
  const stem = BY_LANGUAGE[language.split('-')[0].toLowerCase()];
  if (stem === undefined) return null;
  return (word) => (word.length > MAX_STEMMED || word.length < 3 ? word : stem(word));
}
