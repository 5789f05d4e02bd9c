// The portal's one script module. Pages are complete without it; it adds the navigation drawer of
// narrow screens, "On this page" following the reading, copy buttons on code, the switches going
// where they are set, the PDF dialog (?pdf=1&lang=…&topics=… opens it pre-filled), "Copy as
// Markdown", and small conveniences ("/" jumps to the search box). Its words come from the page's
// JSON messages element, in the page's language.

document.documentElement.classList.add('js');

const body = document.body;
const data = body.dataset;
const dialog = document.getElementById('pdf-dialog');
const opener = document.getElementById('pdf-open');
const messages = readMessages();

/** The interface text the page carries for its scripts (`fallback` when a key is missing). */
function t(key, fallback, vars = {}) {
  const text = messages[key] ?? fallback;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

function readMessages() {
  try {
    return JSON.parse(document.getElementById('portal-messages')?.textContent ?? '{}');
  } catch {
    return {};
  }
}

const announcer = document.getElementById('announcer');
/** Says `text` to screen readers through the page's live region (again, when it is the same). */
function announce(text) {
  if (!announcer) return;
  announcer.textContent = '';
  setTimeout(() => {
    announcer.textContent = text;
  }, 50);
}

setUpDrawer();
setUpContents();
setUpCodeCopy();
for (const form of document.querySelectorAll('form.switch')) setUpSwitch(form);

/**
 * A switch goes to the chosen address (each option's value) as soon as it is chosen with a pointer.
 * Arrow keys step through the options of a closed select one change at a time, so a choice made
 * with the keys waits for Enter (or the form's button, shown again) rather than leaving at the first step.
 */
function setUpSwitch(form) {
  const select = form.querySelector('select');
  if (!select) return;
  let byKey = false;
  select.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      location.assign(select.value);
    } else if (event.key !== 'Tab') byKey = true;
  });
  select.addEventListener('pointerdown', () => {
    byKey = false;
  });
  select.addEventListener('change', () => {
    if (byKey) form.classList.add('pending');
    else location.assign(select.value);
  });
}

/**
 * Below 900 px the drawer (switches and tree) opens over the page from the menu button: the rest of
 * the page is inert while it is open, Tab stays inside, Escape closes it and gives focus back to
 * the button, and the page being read is scrolled into view.
 */
function setUpDrawer() {
  const drawer = document.getElementById('drawer');
  const button = document.getElementById('menu-button');
  const close = document.getElementById('drawer-close');
  const backdrop = document.getElementById('drawer-backdrop');
  if (!drawer || !button || !close || !backdrop) return;
  const narrow = matchMedia('(max-width: 899.98px)');
  const outside = () => [document.querySelector('.site-header'), document.querySelector('main'), document.querySelector('.site-footer'), document.querySelector('.skip-link')].filter(Boolean);
  button.hidden = false;
  close.hidden = false;

  function open() {
    drawer.classList.add('open');
    drawer.setAttribute('role', 'dialog');
    drawer.setAttribute('aria-modal', 'true');
    drawer.setAttribute('aria-label', drawer.querySelector('.tree')?.getAttribute('aria-label') ?? 'Contents');
    backdrop.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    document.documentElement.classList.add('drawer-open');
    for (const element of outside()) element.inert = true;
    const current = drawer.querySelector('.tree [aria-current="page"]');
    if (current) {
      current.scrollIntoView({ block: 'center' });
      current.focus({ preventScroll: true });
    } else close.focus();
  }

  function shut(returnFocus = true) {
    if (!drawer.classList.contains('open')) return;
    drawer.classList.remove('open');
    for (const name of ['role', 'aria-modal', 'aria-label']) drawer.removeAttribute(name);
    backdrop.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    document.documentElement.classList.remove('drawer-open');
    for (const element of outside()) element.inert = false;
    if (returnFocus) button.focus();
  }

  button.addEventListener('click', () => (drawer.classList.contains('open') ? shut() : open()));
  close.addEventListener('click', () => shut());
  backdrop.addEventListener('click', () => shut());
  narrow.addEventListener('change', () => shut(false));
  // On the document: a click on the drawer's text leaves the focus on the body, and Escape still closes it.
  document.addEventListener('keydown', (event) => {
    if (!drawer.classList.contains('open')) return;
    if (event.key === 'Escape') {
      event.preventDefault();
      shut();
      return;
    }
    if (event.key !== 'Tab') return;
    const focusable = [...drawer.querySelectorAll('a[href], button, select, input, [tabindex="0"]')].filter((e) => !e.disabled && e.offsetParent !== null);
    if (focusable.length === 0) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (!drawer.contains(document.activeElement)) {
      event.preventDefault();
      (event.shiftKey ? last : first).focus();
    } else if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  });
}

/**
 * "On this page": open beside the article where the stylesheet puts it there (1200 px and wider),
 * and its entry of the section in view marked (`aria-current`) as the reader scrolls.
 */
function setUpContents() {
  const toc = document.getElementById('toc');
  if (!toc) return;
  const wide = matchMedia('(min-width: 1200px)');
  const fit = () => {
    toc.open = wide.matches;
  };
  fit();
  wide.addEventListener('change', fit);
  const links = new Map();
  for (const link of toc.querySelectorAll('a[href^="#"]')) {
    const target = document.getElementById(decodeURIComponent(link.getAttribute('href').slice(1)));
    if (target) links.set(target, link);
  }
  if (links.size === 0 || !('IntersectionObserver' in window)) return;
  const headings = [...links.keys()];
  const inView = new Set();
  let marked = null;
  const mark = (heading) => {
    if (marked === heading) return;
    links.get(marked)?.removeAttribute('aria-current');
    marked = heading;
    links.get(heading)?.setAttribute('aria-current', 'true');
  };
  // A heading counts from when it enters the top third of the window; the first of those in view wins.
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) inView.add(entry.target);
        else inView.delete(entry.target);
      }
      const first = headings.find((h) => inView.has(h));
      if (first) mark(first);
      else {
        // Between headings: the last one above the window's top is the section being read.
        const above = headings.filter((h) => h.getBoundingClientRect().top < 0);
        mark(above[above.length - 1] ?? null);
      }
    },
    { rootMargin: '0px 0px -66% 0px' },
  );
  for (const heading of headings) observer.observe(heading);
}

/** A copy button after each code block; what happened is said through the page's live region. */
function setUpCodeCopy() {
  for (const pre of document.querySelectorAll('.content pre.code')) {
    const block = document.createElement('div');
    block.className = 'code-block';
    pre.replaceWith(block);
    block.append(pre);
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'code-copy';
    button.textContent = t('code.copy', 'Copy');
    block.append(button);
    let reset = 0;
    button.addEventListener('click', async () => {
      const text = pre.querySelector('code')?.textContent ?? pre.textContent;
      let done;
      try {
        await navigator.clipboard.writeText(text);
        done = t('code.copied', 'Copied');
      } catch {
        done = t('code.failed', 'Could not copy');
      }
      button.textContent = done;
      announce(done);
      clearTimeout(reset);
      reset = setTimeout(() => {
        button.textContent = t('code.copy', 'Copy');
      }, 2000);
    });
  }
}

// "/" focuses the search box, unless the reader is typing somewhere.
document.addEventListener('keydown', (event) => {
  const target = event.target;
  const typing = target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  if (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
    const search = document.getElementById('q');
    if (search) {
      event.preventDefault();
      search.focus();
      search.select();
    }
  }
});

if (dialog && opener) setUpPdfDialog(dialog, opener);

const copier = document.getElementById('copy-markdown');
const twin = document.querySelector('link[rel="alternate"][type="text/markdown"]');
if (copier && twin && navigator.clipboard) setUpCopy(copier, twin.href);

/** Copies the page's Markdown twin (the page names it) to the clipboard. */
function setUpCopy(button, href) {
  const status = document.getElementById('copy-status');
  button.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    status.textContent = '';
    const text = fetch(href, { headers: { accept: 'text/markdown' } }).then((res) => {
      if (!res.ok) throw new Error(String(res.status));
      return res.text();
    });
    try {
      try {
        // Safari keeps the click's permission to write only for an item made at once, its text to come.
        await navigator.clipboard.write([new ClipboardItem({ 'text/plain': text.then((t) => new Blob([t], { type: 'text/plain' })) })]);
      } catch {
        // Without ClipboardItem, or when the text could not be fetched (then this throws again).
        await navigator.clipboard.writeText(await text);
      }
      status.textContent = t('markdown.copied', 'Copied as Markdown.');
    } catch {
      status.textContent = t('markdown.failed', 'The page could not be copied.');
    } finally {
      button.disabled = false;
    }
  });
}

function setUpPdfDialog(dialog, opener) {
  const form = dialog.querySelector('form');
  const topicsBox = document.getElementById('pdf-topics');
  const topicsStatus = document.getElementById('pdf-topics-status');
  const language = document.getElementById('pdf-lang');
  const progress = document.getElementById('pdf-progress');
  const bar = document.getElementById('pdf-bar');
  const status = document.getElementById('pdf-status');
  const problem = document.getElementById('pdf-error');
  const submit = document.getElementById('pdf-submit');
  const scopes = [...form.querySelectorAll('input[name="scope"]')];
  let treeLanguage = null;
  let wanted = new Set();

  opener.hidden = false;
  opener.addEventListener('click', () => open());
  document.getElementById('pdf-cancel').addEventListener('click', () => dialog.close());
  for (const radio of scopes) radio.addEventListener('change', () => showTopics());
  language.addEventListener('change', () => {
    if (!topicsBox.hidden) loadTree();
  });

  function open() {
    problem.hidden = true;
    status.textContent = '';
    progress.hidden = true;
    dialog.showModal();
  }

  function scope() {
    return scopes.find((r) => r.checked)?.value ?? 'all';
  }

  function showTopics() {
    topicsBox.hidden = scope() !== 'chosen';
    if (!topicsBox.hidden) loadTree();
  }

  /** The version's whole tree as checkboxes (from the API's tree, in the dialog's language). */
  async function loadTree() {
    if (treeLanguage === language.value) return;
    treeLanguage = language.value;
    const checked = new Set([...wanted, ...[...topicsBox.querySelectorAll('input:checked')].map((c) => c.value)]);
    wanted = new Set();
    try {
      const res = await fetch(`${data.api}/versions/${encodeURIComponent(data.version)}/tree?language=${encodeURIComponent(language.value)}`);
      if (!res.ok) throw new Error(String(res.status));
      const { tree } = await res.json();
      topicsBox.querySelector('ul')?.remove();
      topicsBox.append(checkboxes(tree, checked));
      topicsStatus.textContent = t('pdf.chooseHint', 'Choose topics; a section brings all of its topics.');
    } catch {
      treeLanguage = null;
      topicsStatus.textContent = t('pdf.treeFailed', 'The contents could not be loaded.');
    }
  }

  function checkboxes(nodes, checked) {
    const list = document.createElement('ul');
    for (const node of nodes) {
      const item = document.createElement('li');
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.name = 'topic';
      box.value = node.slug;
      box.checked = checked.has(node.slug);
      // A section's box checks or clears everything below it.
      box.addEventListener('change', () => {
        for (const inner of item.querySelectorAll('ul input')) inner.checked = box.checked;
      });
      label.append(box, ` ${node.title}`);
      item.append(label);
      if (node.children.length > 0) item.append(checkboxes(node.children, checked));
      if (checked.has(node.slug)) for (const inner of item.querySelectorAll('ul input')) inner.checked = true;
      list.append(item);
    }
    return list;
  }

  /** The slugs to ask for: a checked node stands for everything below it. */
  function chosen() {
    const out = [];
    const walk = (list) => {
      for (const item of list?.children ?? []) {
        const box = item.querySelector(':scope > label > input');
        if (box.checked) out.push(box.value);
        else walk(item.querySelector(':scope > ul'));
      }
    };
    walk(topicsBox.querySelector(':scope > ul'));
    return out;
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const which = scope();
    let topics = [];
    if (which === 'section') topics = [form.querySelector('input[value="section"]').dataset.slug];
    if (which === 'chosen') {
      topics = chosen();
      if (topics.length === 0) return fail(t('pdf.chooseOne', 'Choose at least one topic, or another option.'));
    }
    problem.hidden = true;
    submit.disabled = true;
    progress.hidden = false;
    bar.removeAttribute('value');
    try {
      const { downloadPdf } = await import(data.pdfScript);
      await downloadPdf({
        api: data.api,
        portal: data.portal,
        version: data.version,
        language: language.value,
        topics,
        messages,
        assets: { pdfmake: data.pdfmake, courier: data.courier, markdownIt: data.markdownIt, layout: data.pdfLayout },
        onProgress: (fraction, text) => {
          if (fraction === null) bar.removeAttribute('value');
          else bar.value = Math.round(fraction * 100);
          status.textContent = text;
        },
      });
    } catch (error) {
      fail(error?.data !== undefined ? error.message : t('pdf.failed', 'The PDF could not be made: {reason}', { reason: error?.message ?? error }));
    } finally {
      submit.disabled = false;
    }
  });

  function fail(message) {
    progress.hidden = true;
    status.textContent = '';
    problem.textContent = message;
    problem.hidden = false;
  }

  // A link such as ?pdf=1&lang=de&topics=a,b opens the dialog pre-filled.
  const params = new URLSearchParams(location.search);
  if (params.get('pdf') === '1') {
    const lang = params.get('lang');
    if (lang && [...language.options].some((o) => o.value === lang)) language.value = lang;
    const topics = (params.get('topics') ?? '').split(',').filter((s) => /^[a-z0-9_-]+$/.test(s));
    if (topics.length > 0) {
      wanted = new Set(topics);
      scopes.find((r) => r.value === 'chosen').checked = true;
      showTopics();
    }
    open();
  }
}
