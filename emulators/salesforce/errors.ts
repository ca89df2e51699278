// Salesforce REST error bodies: an array of `{message, errorCode, fields?}` (REST API "Status Codes and
// Error Responses"); per-record results of sObject Collections use `{statusCode, message, fields}`
// instead. OAuth token errors are `{error, error_description}`.
import type { Response } from 'express';

export interface ApiErrorItem {
  message: string;
  errorCode: string;
  fields?: string[];
}

export class SalesforceError extends Error {
  readonly httpStatus: number;
  readonly errors: ApiErrorItem[];
  constructor(httpStatus: number, errors: ApiErrorItem[]) {
    super(errors[0]?.message ?? 'error');
    this.httpStatus = httpStatus;
    this.errors = errors;
  }
}

export class OAuthError extends Error {
  readonly httpStatus: number;
  readonly error: string;
  constructor(httpStatus: number, error: string, description: string) {
    super(description);
    this.httpStatus = httpStatus;
    this.error = error;
  }
}

const one = (status: number, errorCode: string, message: string, fields?: string[]) =>
  new SalesforceError(status, [{ message, errorCode, ...(fields ? { fields } : {}) }]);

export const invalidSession = () => one(401, 'INVALID_SESSION_ID', 'Session expired or invalid');
export const requestLimitExceeded = () => one(403, 'REQUEST_LIMIT_EXCEEDED', 'TotalRequests Limit exceeded.');
export const notFound = (message = 'The requested resource does not exist') => one(404, 'NOT_FOUND', message);
export const entityIsDeleted = () => one(404, 'ENTITY_IS_DELETED', 'entity is deleted', []);
/**
 * A write naming a deleted record in a reference field. The REST guide lists ENTITY_IS_DELETED among the
 * record errors without its HTTP status for this case; a refused write is a 400 (as every other
 * per-record refusal of a create is), so a single create answers 400 here, not the 404 of a GET.
 */
export const referenceIsDeleted = () => one(400, 'ENTITY_IS_DELETED', 'entity is deleted', []);
export const malformedId = (type: string, id: string) =>
  one(400, 'MALFORMED_ID', `${type} ID: id value of incorrect type: ${id}`, ['Id']);
export const jsonParserError = (message: string) => one(400, 'JSON_PARSER_ERROR', message);
export const malformedQuery = (message: string) => one(400, 'MALFORMED_QUERY', message);
export const invalidQueryLocator = () => one(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
export const invalidField = (type: string, field: string) =>
  one(400, 'INVALID_FIELD', `No such column '${field}' on sobject of type ${type}`, [field]);
export const invalidFieldForInsertUpdate = (fields: string[]) =>
  one(
    400,
    'INVALID_FIELD_FOR_INSERT_UPDATE',
    `Unable to create/update fields: ${fields.join(', ')}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`,
    fields,
  );
export const requiredFieldMissing = (fields: string[]) =>
  one(400, 'REQUIRED_FIELD_MISSING', `Required fields are missing: [${fields.join(', ')}]`, fields);
export const invalidCrossReferenceKey = () =>
  one(400, 'INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id', []);
/** A reference field holding something that is no id of the right object. */
export const malformedReference = (label: string, value: string, field: string) =>
  one(400, 'MALFORMED_ID', `${label}: id value of incorrect type: ${value}`, [field]);
export const badPicklistValue = (field: string, value: string) =>
  one(400, 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', `bad value for restricted picklist field: ${value}`, [
    field,
  ]);
/** An object the API cannot insert or delete directly (ContentDocument, ContentVersion). */
export const invalidTypeForOperation = (operation: 'inserted' | 'deleted', label: string) =>
  one(400, 'INVALID_TYPE_FOR_OPERATION', `entity type cannot be ${operation}: ${label}`);
/**
 * An injected status with an errorCode the REST guide gives it: UNKNOWN_EXCEPTION is the 500's ("an
 * error has occurred within Lightning Platform"), never a 4xx's; an injected 400 is the transient record
 * lock integrations retry (UNABLE_TO_LOCK_ROW), which jsforce, unlike a 5xx, does not retry itself.
 */
export const faultError = (status: number) =>
  status === 503
    ? one(503, 'SERVER_UNAVAILABLE', 'Server unavailable')
    : status === 400
      ? one(400, 'UNABLE_TO_LOCK_ROW', 'unable to obtain exclusive access to this record or 1 records')
      : one(
          status,
          'UNKNOWN_EXCEPTION',
          'An unexpected error occurred. Please include this ErrorId if you contact support: 0-0 (sandbox)',
        );

export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).setHeader('Content-Type', 'application/json;charset=UTF-8');
  res.send(Buffer.from(JSON.stringify(body), 'utf8'));
}

export function sendSalesforceError(res: Response, err: SalesforceError): void {
  sendJson(res, err.httpStatus, err.errors);
}

export function sendOAuthError(res: Response, err: OAuthError): void {
  sendJson(res, err.httpStatus, { error: err.error, error_description: err.message });
}
