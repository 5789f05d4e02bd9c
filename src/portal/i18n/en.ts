/**
 * Every piece of interface text the portal and its PDFs print, in English. The other catalogues
 * translate these keys; a key one of them lacks shows in English. `{name}` marks a value filled in
 * when the text is used (it must appear in every translation of the key).
 */
export const en = {
  // Page frame
  'skip.content': 'Skip to content',
  'menu.open': 'Open menu',
  'menu.close': 'Close menu',
  'nav.contents': 'Contents',
  'nav.breadcrumb': 'Breadcrumb',
  'nav.section': 'In this section',
  'toc.title': 'On this page',
  'heading.anchor': 'Link to this section',
  updated: 'Last updated {date}',
  // {language}: the page's language in its own words (français); {shown}: the shown one's name in itself (English), marked with its lang.
  'notice.fallback': 'This page is not yet available in {language}; showing {shown}.',
  'outdated.notice': 'The {language} page has changed since this translation was written.',

  // Search
  'search.label': 'Search this version',
  'search.placeholder': 'Search',
  'search.button': 'Search',
  'search.title': 'Search',
  'search.results': 'Search results',
  'search.resultsRange': 'results {from}–{to}',
  'search.none': 'No pages match “{query}”.',
  'search.one': '1 page matches “{query}”.',
  'search.many': '{count} pages match “{query}”.',
  'search.atLeastOne': 'At least 1 page matches “{query}”.',
  'search.atLeastMany': 'At least {count} pages match “{query}”.',
  'search.noMore': 'There are no more results.',
  'search.showing': 'Showing {from}–{to}.',
  'search.suggestion': 'Did you mean {suggestion}?',
  'search.partial': 'Some matches of very short words may be missing: type more letters.',
  'search.pages': 'Result pages',
  'search.previous': 'Previous results',
  'search.more': 'More results',
  'search.tooLong': 'The search text is too long: at most {max} characters.',

  // Previous and next
  'pager.label': 'Previous and next',
  'pager.previous': 'Previous',
  'pager.next': 'Next',

  // Switchers
  'switch.version': 'Version',
  'switch.language': 'Language',
  'switch.latest': 'latest',
  'switch.notTranslated': 'not translated',
  'switch.go': 'Go',

  // Home pages
  'home.versions': 'Choose a version',
  'home.latest': 'Latest',
  'home.sections': 'Sections',
  'home.start': 'Start reading',
  'home.empty': 'This version has no pages yet.',
  'home.more': '{count} more',

  // Reading comforts
  'markdown.copy': 'Copy as Markdown',
  'markdown.copied': 'Copied as Markdown.',
  'markdown.failed': 'The page could not be copied.',
  'code.copy': 'Copy',
  'code.copied': 'Copied',
  'code.failed': 'Could not copy',
  'feedback.question': 'Was this helpful?',
  'feedback.yes': 'Yes',
  'feedback.no': 'No',
  'feedback.comment': 'What could be better?',
  'feedback.send': 'Send',
  'feedback.thanks': 'Thank you for your feedback.',

  // The PDF dialog
  'pdf.open': 'Download PDF',
  'pdf.title': 'Download PDF',
  'pdf.include': 'Include',
  'pdf.whole': 'The whole version ({version})',
  'pdf.section': 'This section: {section}',
  'pdf.chosen': 'Chosen topics',
  'pdf.topics': 'Topics',
  'pdf.loadingTopics': 'Loading the contents…',
  'pdf.chooseHint': 'Choose topics; a section brings all of its topics.',
  'pdf.treeFailed': 'The contents could not be loaded.',
  'pdf.language': 'Language',
  'pdf.submit': 'Download PDF',
  'pdf.close': 'Close',
  'pdf.chooseOne': 'Choose at least one topic, or another option.',
  'pdf.failed': 'The PDF could not be made: {reason}',
  'pdf.libraryFailed': 'The PDF library could not be loaded.',
  'pdf.tooMany': 'This selection holds {topics} topics, and a PDF can hold at most {max}. Choose a section, or fewer topics.',
  'pdf.prepareFailed': 'The PDF could not be prepared: {reason}',
  'pdf.prepareStatus': 'The PDF could not be prepared (status {status}).',
  'pdf.preparing': 'Preparing the selection…',
  'pdf.fonts': 'Loading fonts…',
  'pdf.fontsProgress': 'Loading fonts ({n} of {total})…',
  'pdf.images': 'Loading images…',
  'pdf.layout': 'Laying out pages…',
  'pdf.layoutProgress': 'Laying out pages ({percent} %)…',
  'pdf.saved': 'Saved {filename}.',
  'pdf.noFont': 'This help service has no font for {languages}: text in that script may show as empty boxes or be missing.',

  // The PDF itself
  'pdf.contents': 'Contents',
  'pdf.fallback': 'Not yet available in {language}; shown in {shown}.',
  'pdf.page': '{page} / {pages}',

  // Error pages
  'error.language.title': 'Not available in this language',
  'error.language.text': 'This help is not available in {language}. Read it in:',
  'error.404.title': 'Page not found',
  'error.404.text': 'There is no published page at this address. It may have moved, or the version may not be published.',
  'error.503.title': 'Not available right now',
  'error.503.text': 'This part of the help cannot be shown at the moment. Please try again shortly.',
  'error.500.title': 'Something went wrong',
  'error.500.text': 'The page could not be shown. Please try again later.',
  'error.home': 'Go to the help start page',

  // The 410 page of a removed topic
  'gone.title': 'This page was removed',
  'gone.text': 'The page you asked for is no longer part of {version}. Its content was removed or merged into other pages.',
  'gone.start': 'Go to the start of {version}',
  'gone.search': 'Search the help',

  // A feedback post or result link refused (the page instead of the form's thanks)
  'signal.title': 'Not recorded',
  'signal.failed': 'The feedback could not be recorded. Please try again later.',
  'signal.tooMany': 'Too much feedback has come from this address within the hour. Please try again later.',
  'signal.otherSite': 'Feedback is taken from this help’s own pages only.',
  'signal.tooLarge': 'The comment is too long.',
  'signal.choose': 'Choose one of the two answers, Yes or No.',
  'signal.refused': 'The feedback could not be accepted.',
  'signal.back': 'Back',
} as const;
