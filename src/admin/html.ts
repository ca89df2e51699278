// The one escape every admin page uses: a value from a CRM or a person is text, never markup, whether it
// lands in an element or in a quoted attribute.
export const esc = (value: unknown): string =>
  String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
