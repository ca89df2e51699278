// The Metadata API's SOAP endpoint (`POST /services/Soap/m/{version}`), as far as setup uses it:
// `upsertMetadata` and `readMetadata` of CustomField, as jsforce 3 sends them (a SOAP 1.1 envelope,
// the session id in `SessionHeader`, `metadata` elements with `xsi:type="CustomField"`). Answers are
// SOAP envelopes (text/xml); an unknown or expired session is a SOAP fault `sf:INVALID_SESSION_ID` with
// HTTP 500, which is what makes jsforce refresh the session and send the call again. Per-item problems
// (no such object, a bad API name, a bad type, length or precision) are `success: false` results with
// `errors`; the valid items of the same call are still saved.
import { setTimeout as delay } from 'node:timers/promises';
import express, { type Request, type Response, type Router } from 'express';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SalesforceError } from './errors.ts';
import { specOfCustomField } from './field-types.ts';
import { LIMIT_INFO_HEADER, type OperationContext } from './operation.ts';
import { resolveType, type SalesforceStore, type SObjectType, supportsCustomFields } from './store.ts';

const SOAPENV = 'http://schemas.xmlsoap.org/soap/envelope/';
const METADATA_NS = 'http://soap.sforce.com/2006/04/metadata';
/** Metadata API CRUD calls take at most 10 components. */
export const METADATA_CRUD_LIMIT = 10;

export const FIELD_TYPES = [
  'Text',
  'LongTextArea',
  'Number',
  'Date',
  'DateTime',
  'Picklist',
  'Checkbox',
  'Url',
] as const;

type XmlValue = string | XmlNode | XmlValue[];
interface XmlNode {
  [key: string]: XmlValue;
}

export class SoapFault extends Error {
  readonly httpStatus: number;
  readonly faultcode: string;
  constructor(faultcode: string, faultstring: string, httpStatus = 500) {
    super(faultstring);
    this.faultcode = faultcode;
    this.httpStatus = httpStatus;
  }
}

const invalidSessionFault = () =>
  new SoapFault(
    'sf:INVALID_SESSION_ID',
    'INVALID_SESSION_ID: Invalid Session ID found in SessionHeader: Illegal Session',
  );

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};
export const escapeXml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** The predefined XML entities and character references (the parser leaves entities alone). */
export function decodeXmlText(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g, (whole, name: string) => {
    if (name.startsWith('#x')) return safeCodePoint(Number.parseInt(name.slice(2), 16)) ?? whole;
    if (name.startsWith('#')) return safeCodePoint(Number.parseInt(name.slice(1), 10)) ?? whole;
    return ENTITIES[name] ?? whole;
  });
}
const safeCodePoint = (n: number) => (n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : undefined);

const ARRAY_ELEMENTS = new Set(['metadata', 'fullNames', 'value']);
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  processEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  isArray: (name) => ARRAY_ELEMENTS.has(name),
});

/** Parses a SOAP request; no DOCTYPE (no entity expansion of any kind). */
export function parseSoap(body: string): XmlNode {
  if (/<!DOCTYPE/i.test(body) || /<!ENTITY/i.test(body))
    throw new SoapFault('soapenv:Client', 'DOCTYPE is not allowed in a SOAP message');
  const valid = XMLValidator.validate(body);
  if (valid !== true) throw new SoapFault('soapenv:Client', `Unable to parse the request: ${valid.err.msg}`);
  const doc = parser.parse(body) as unknown;
  return decodeTree(doc) as XmlNode;
}

function decodeTree(v: unknown): XmlValue {
  if (Array.isArray(v)) return v.map(decodeTree);
  if (v !== null && typeof v === 'object') {
    const out: XmlNode = {};
    for (const [k, child] of Object.entries(v)) out[k] = decodeTree(child);
    return out;
  }
  return decodeXmlText(v === undefined || v === null ? '' : String(v));
}

const isNode = (v: XmlValue | undefined): v is XmlNode =>
  v !== undefined && typeof v === 'object' && !Array.isArray(v);
const child = (v: XmlValue | undefined, key: string): XmlValue | undefined =>
  isNode(v) ? v[key] : undefined;
const text = (v: XmlValue | undefined): string | undefined => {
  if (typeof v === 'string') return v;
  if (isNode(v) && typeof v['#text'] === 'string') return v['#text'];
  if (isNode(v)) return '';
  return undefined;
};
const list = (v: XmlValue | undefined): XmlValue[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** An XML element (children in order; attributes `@name`; `#text` text). */
export function toXml(name: string, value: XmlValue): string {
  if (Array.isArray(value)) return value.map((v) => toXml(name, v)).join('');
  if (typeof value === 'string') return `<${name}>${escapeXml(value)}</${name}>`;
  const attrs: string[] = [];
  const inner: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (k.startsWith('@')) attrs.push(` ${k.slice(1)}="${escapeXml(text(v) ?? '')}"`);
    else if (k === '#text') inner.push(escapeXml(text(v) ?? ''));
    else inner.push(toXml(k, v));
  }
  return `<${name}${attrs.join('')}>${inner.join('')}</${name}>`;
}

function envelope(body: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<soapenv:Envelope xmlns:soapenv="${SOAPENV}" xmlns="${METADATA_NS}"` +
    ' xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    `<soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`
  );
}

function sendXml(res: Response, status: number, xml: string): void {
  res.status(status).setHeader('Content-Type', 'text/xml;charset=UTF-8');
  res.send(Buffer.from(xml, 'utf8'));
}

export function sendFault(res: Response, fault: SoapFault): void {
  sendXml(
    res,
    fault.httpStatus,
    envelope(
      `<soapenv:Fault><faultcode>${escapeXml(fault.faultcode)}</faultcode>` +
        `<faultstring>${escapeXml(fault.message)}</faultstring></soapenv:Fault>`,
    ),
  );
}

interface MetadataError {
  statusCode: string;
  message: string;
  fields?: string[];
}

/** The CustomField components saved per org (what `readMetadata` gives back). */
const savedFields = new WeakMap<SalesforceStore, Map<string, XmlNode>>();
function fieldsOf(store: SalesforceStore): Map<string, XmlNode> {
  let map = savedFields.get(store);
  if (!map) {
    map = new Map();
    savedFields.set(store, map);
  }
  return map;
}

const integrity = (message: string, field?: string): MetadataError => ({
  statusCode: 'FIELD_INTEGRITY_EXCEPTION',
  message,
  ...(field ? { fields: [field] } : {}),
});

const intOf = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined);

/** Checks one CustomField component; its object and API name when valid, else its errors. */
export function validateCustomField(
  md: XmlNode,
): { ok: true; type: SObjectType; name: string } | { ok: false; errors: MetadataError[] } {
  const fullName = text(md.fullName) ?? '';
  const dot = fullName.indexOf('.');
  if (dot <= 0)
    return {
      ok: false,
      errors: [
        {
          statusCode: 'INVALID_CROSS_REFERENCE_KEY',
          message: `In field: fullName - no CustomObject named ${fullName} found`,
        },
      ],
    };
  const objectName = fullName.slice(0, dot);
  const name = fullName.slice(dot + 1);
  const type = resolveType(objectName);
  if (!type || !supportsCustomFields(type))
    return {
      ok: false,
      errors: [
        {
          statusCode: 'INVALID_CROSS_REFERENCE_KEY',
          message: `In field: fullName - no CustomObject named ${objectName} found`,
          fields: ['fullName'],
        },
      ],
    };
  const errors: MetadataError[] = [];
  const base = name.endsWith('__c') ? name.slice(0, -3) : '';
  if (
    !name.endsWith('__c') ||
    !/^[A-Za-z][A-Za-z0-9_]*$/.test(base) ||
    base.includes('__') ||
    base.endsWith('_')
  )
    errors.push(
      integrity(
        'The Field Name field can only contain underscores and alphanumeric characters. It must be unique, begin with a letter, not include spaces, not end with an underscore, and not contain two consecutive underscores.',
        'fullName',
      ),
    );
  else if (base.length > 40)
    errors.push(integrity(`Field name too long: ${base} (max length=40)`, 'fullName'));
  const label = text(md.label) ?? '';
  if (label === '')
    errors.push({
      statusCode: 'REQUIRED_FIELD_MISSING',
      message: 'Required field is missing: label',
      fields: ['label'],
    });
  else if (label.length > 40) errors.push(integrity(`Label too long: max length is 40`, 'label'));
  const fieldType = text(md.type) ?? '';
  const length = intOf(text(md.length));
  if (!(FIELD_TYPES as readonly string[]).includes(fieldType)) {
    errors.push(
      fieldType === ''
        ? {
            statusCode: 'REQUIRED_FIELD_MISSING',
            message: 'Required field is missing: type',
            fields: ['type'],
          }
        : integrity(`Invalid field type: ${fieldType}`, 'type'),
    );
  } else if (fieldType === 'Text') {
    if (length === undefined || length < 1)
      errors.push(integrity('Length is required and must be at least 1', 'length'));
    else if (length > 255) errors.push(integrity("Length can't be more than 255.", 'length'));
  } else if (fieldType === 'LongTextArea') {
    if (length === undefined || length < 256 || length > 131_072)
      errors.push(integrity('Length must be between 256 and 131072', 'length'));
    const lines = intOf(text(md.visibleLines));
    if (lines === undefined || lines < 2 || lines > 50)
      errors.push(integrity('Visible lines must be between 2 and 50', 'visibleLines'));
  } else if (fieldType === 'Number') {
    const precision = intOf(text(md.precision));
    const scale = intOf(text(md.scale)) ?? 0;
    if (precision === undefined || precision < 1)
      errors.push(integrity('Precision is required and must be at least 1', 'precision'));
    else if (precision > 18)
      errors.push(integrity('The total digits for a number field cannot exceed 18.', 'precision'));
    else if (scale > precision)
      errors.push(integrity('The number of decimal places cannot exceed the total digits.', 'scale'));
  } else if (fieldType === 'Checkbox') {
    const def = text(md.defaultValue);
    if (def !== undefined && def !== 'true' && def !== 'false')
      errors.push(integrity('Checkbox default value must be true or false', 'defaultValue'));
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, type, name };
}

function errorsXml(errors: MetadataError[]): string {
  return errors
    .map(
      (e) =>
        `<errors>${(e.fields ?? []).map((f) => toXml('fields', f)).join('')}` +
        `${toXml('message', e.message)}${toXml('statusCode', e.statusCode)}</errors>`,
    )
    .join('');
}

function upsertMetadata(store: SalesforceStore, call: XmlValue | undefined): string {
  const items = list(child(call, 'metadata'));
  if (items.length > METADATA_CRUD_LIMIT)
    throw new SoapFault(
      'sf:LIMIT_EXCEEDED',
      `LIMIT_EXCEEDED: The number of components in one call exceeds the limit of ${METADATA_CRUD_LIMIT}`,
    );
  const results = items.map((item) => {
    const md: XmlNode = isNode(item) ? item : {};
    const fullName = text(md.fullName) ?? '';
    const xsiType = text(md['@type']) ?? '';
    const result = (created: boolean, success: boolean, errors: MetadataError[] = []) =>
      `<result><created>${created}</created>${errorsXml(errors)}${toXml('fullName', fullName)}` +
      `<success>${success}</success></result>`;
    if (xsiType.replace(/^.*:/, '') !== 'CustomField')
      return result(false, false, [
        {
          statusCode: 'INVALID_TYPE',
          message: `The sandbox supports CustomField only, not ${xsiType || 'no type'}`,
        },
      ]);
    const checked = validateCustomField(md);
    if (!checked.ok) return result(false, false, checked.errors);
    const existed = store.fields(checked.type).some((f) => f.toLowerCase() === checked.name.toLowerCase());
    const defined = store.defineCustomField(
      checked.type,
      checked.name,
      specOfCustomField(md),
      text(md.label),
    );
    const { '@type': _type, ...stored } = md;
    fieldsOf(store).set(`${checked.type}.${defined}`.toLowerCase(), {
      ...stored,
      fullName: `${checked.type}.${defined}`,
    });
    return result(!existed, true);
  });
  return `<upsertMetadataResponse>${results.join('')}</upsertMetadataResponse>`;
}

function readMetadata(store: SalesforceStore, call: XmlValue | undefined): string {
  const type = text(child(call, 'type')) ?? '';
  if (type !== 'CustomField')
    throw new SoapFault('sf:INVALID_TYPE', `INVALID_TYPE: The sandbox reads CustomField only, not ${type}`);
  const records = list(child(call, 'fullNames'))
    .map((n) => fieldsOf(store).get((text(n) ?? '').toLowerCase()))
    .filter((r): r is XmlNode => r !== undefined)
    .map((r) => toXml('records', { '@xsi:type': 'CustomField', ...r }));
  return `<readMetadataResponse><result>${records.join('')}</result></readMetadataResponse>`;
}

const METHODS: Record<string, (store: SalesforceStore, call: XmlValue | undefined) => string> = {
  upsertMetadata,
  readMetadata,
};

/** `POST /services/Soap/m/:version`, counted as `metadata.<method>` (e.g. `metadata.upsertMetadata`). */
export function registerMetadataRoutes(router: Router, ctx: OperationContext, maxBodyBytes: number): void {
  router.post(
    '/services/Soap/m/:version',
    express.text({ type: () => true, limit: maxBodyBytes }),
    async (req: Request, res: Response) => {
      let operation = 'metadata.unknown';
      res.on('finish', () => ctx.stats.record(operation, res.statusCode));
      try {
        if (!/^\d+\.\d$/.test(String(req.params.version)) || Number(req.params.version) < 50)
          throw new SoapFault('sf:UNSUPPORTED_API_VERSION', 'UNSUPPORTED_API_VERSION: Invalid API version');
        const doc = parseSoap(typeof req.body === 'string' ? req.body : '');
        const env = doc.Envelope;
        const body = child(env, 'Body');
        const method = isNode(body) ? Object.keys(body).find((k) => !k.startsWith('@')) : undefined;
        if (method) operation = `metadata.${method}`;
        const { latencyMs } = ctx.faults.settings;
        if (latencyMs > 0) await delay(latencyMs);

        const sessionId = text(child(child(child(env, 'Header'), 'SessionHeader'), 'sessionId'));
        try {
          ctx.auth.authenticate(`Bearer ${sessionId ?? ''}`);
        } catch (err) {
          if (err instanceof SalesforceError) throw invalidSessionFault();
          throw err;
        }
        const admitted = ctx.apiUsage.hit(ctx.store.orgId);
        const used = admitted.ok ? ctx.apiUsage.limit - admitted.remaining : ctx.apiUsage.limit;
        res.setHeader(LIMIT_INFO_HEADER, `api-usage=${used}/${ctx.apiUsage.limit}`);
        if (!admitted.ok)
          throw new SoapFault(
            'sf:REQUEST_LIMIT_EXCEEDED',
            'REQUEST_LIMIT_EXCEEDED: TotalRequests Limit exceeded.',
          );

        const fault = ctx.faults.next(operation);
        if (fault?.kind === 'status')
          throw new SoapFault(
            fault.status === 503 ? 'sf:SERVER_UNAVAILABLE' : 'sf:UNKNOWN_EXCEPTION',
            fault.status === 503
              ? 'SERVER_UNAVAILABLE: Server unavailable'
              : 'UNKNOWN_EXCEPTION: An unexpected error occurred. Please include this ErrorId if you contact support: 0-0 (sandbox)',
            fault.status,
          );
        if (fault?.kind === 'malformed-json') {
          sendXml(res, 200, '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope');
          return;
        }
        if (fault?.kind === 'delay') await delay(fault.ms);

        const handler = method ? METHODS[method] : undefined;
        if (!method || !handler)
          throw new SoapFault(
            'soapenv:Client',
            `No operation available for request {${METADATA_NS}}${method ?? ''}`,
          );
        sendXml(res, 200, envelope(handler(ctx.store, isNode(body) ? body[method] : undefined)));
      } catch (err) {
        if (err instanceof SoapFault) return sendFault(res, err);
        sendFault(
          res,
          new SoapFault('sf:UNKNOWN_EXCEPTION', 'UNKNOWN_EXCEPTION: An unexpected error occurred.'),
        );
      }
    },
  );
}
