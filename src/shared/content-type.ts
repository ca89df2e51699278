// Every endpoint that reads a body says which media type it reads: a body declared as anything else (or
// not declared) is refused with 415 before it is parsed, so no parser guesses at what it was sent.

/** The media type of a Content-Type header, lower case, parameters (charset…) aside. */
export function mediaTypeOf(header: string | undefined): string | undefined {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  return type || undefined;
}

/** Undefined when the header names one of `accepted`; else the refusal's message. */
export function contentTypeProblem(
  header: string | undefined,
  accepted: readonly string[],
): string | undefined {
  const type = mediaTypeOf(header);
  if (type && accepted.includes(type)) return undefined;
  return `${type ? `Content-Type ${type} is not accepted` : 'no Content-Type'}: send ${accepted.join(' or ')}`;
}
