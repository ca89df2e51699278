// A NoteDraft as the HTML of a HubSpot note (`hs_note_body`), and the dedupe key we hide in it.
//
// The key lives in the note itself so that the CRM, not our Redis, is the source of truth for "this
// signal is already on this account": the body ends with
//   <span data-buyer-intel-key="KEY" style="display:none">buyer-intel-key:KEY</span>
// The attribute is what we write and read; the text copy is there because HubSpot's rich-text editor may
// drop unknown attributes or inline styles when a person edits the note, and the text survives that.
// (Readers accept either.) HubSpot caps hs_note_body at 65,536 characters; the body text is shortened
// to fit, never the title or the marker.

export const NOTE_BODY_LIMIT = 65_536;
const MARKER_ATTRIBUTE = 'data-buyer-intel-key';
const MARKER_TEXT = 'buyer-intel-key:';

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function unescapeHtml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0*39;/g, "'")
    .replace(/&#x0*27;/gi, "'")
    .replace(/&amp;/g, '&');
}

const URL_PATTERN = /https?:\/\/[^\s<>"']+/gi;

/** One line of plain text as HTML: escaped, with http(s) URLs as links (trailing punctuation left out). */
function renderLine(line: string): string {
  let out = '';
  let last = 0;
  for (const match of line.matchAll(URL_PATTERN)) {
    const start = match.index;
    let url = match[0];
    const trailing = /[.,;:!?)\]}]+$/.exec(url)?.[0] ?? '';
    url = url.slice(0, url.length - trailing.length);
    if (!url) continue;
    out += escapeHtml(line.slice(last, start));
    const href = escapeHtml(url);
    out += `<a href="${href}" target="_blank" rel="noopener noreferrer">${href}</a>`;
    last = start + url.length;
  }
  return out + escapeHtml(line.slice(last));
}

function renderBody(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  return lines.map(renderLine).join('<br>');
}

export function noteMarker(dedupeKey: string): string {
  const key = escapeHtml(dedupeKey);
  return `<span ${MARKER_ATTRIBUTE}="${key}" style="display:none">${MARKER_TEXT}${key}</span>`;
}

/** The HTML of a note: the title in <strong>, the body lines separated by <br>, then the marker. */
export function renderNoteHtml(note: { title: string; body: string; dedupeKey: string }): string {
  const head = `<p><strong>${escapeHtml(note.title)}</strong></p>`;
  const marker = noteMarker(note.dedupeKey);
  const build = (body: string) =>
    body.trim() ? `${head}<p>${renderBody(body)}</p>${marker}` : `${head}${marker}`;
  let html = build(note.body);
  let body = note.body;
  // Shorten the body (never the title or the marker) until the HTML fits HubSpot's limit; every raw
  // character renders to at least one HTML character, so each pass removes at least the overflow.
  while (html.length > NOTE_BODY_LIMIT && body.length > 0) {
    body = body.slice(0, Math.max(0, body.length - (html.length - NOTE_BODY_LIMIT) - 1));
    html = build(body ? `${body}…` : '');
  }
  return html;
}

/** Every dedupe key marked in a note body: the attribute form, or else the text form. */
export function extractNoteKeys(html: string | null | undefined): string[] {
  if (!html) return [];
  const keys = new Set<string>();
  for (const match of html.matchAll(/data-buyer-intel-key\s*=\s*(["'])(.*?)\1/gi)) {
    const key = unescapeHtml(match[2] ?? '');
    if (key) keys.add(key);
  }
  if (keys.size === 0) {
    for (const match of html.matchAll(/buyer-intel-key:([^\s<"']+)/g)) {
      const key = unescapeHtml(match[1] ?? '');
      if (key) keys.add(key);
    }
  }
  return [...keys];
}
