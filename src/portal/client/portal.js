// The portal's one script module. Pages are complete without it; it adds the PDF dialog
// (?pdf=1&lang=…&topics=… opens it pre-filled), "Copy as Markdown", and small conveniences ("/" jumps
// to the search box).

const body = document.body;
const data = body.dataset;
const dialog = document.getElementById('pdf-dialog');
const opener = document.getElementById('pdf-open');

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
      status.textContent = 'Copied as Markdown.';
    } catch {
      status.textContent = 'The page could not be copied.';
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
      topicsStatus.textContent = 'Choose topics; a section brings all of its topics.';
    } catch {
      treeLanguage = null;
      topicsStatus.textContent = 'The contents could not be loaded.';
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
      if (topics.length === 0) return fail('Choose at least one topic, or another option.');
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
        assets: { pdfmake: data.pdfmake, courier: data.courier, markdownIt: data.markdownIt, layout: data.pdfLayout },
        onProgress: (fraction, text) => {
          if (fraction === null) bar.removeAttribute('value');
          else bar.value = Math.round(fraction * 100);
          status.textContent = text;
        },
      });
    } catch (error) {
      fail(error?.data !== undefined ? error.message : `The PDF could not be made: ${error?.message ?? error}`);
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
