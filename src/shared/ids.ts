// The provider's ids (buyers, bridges, rows, columns) are uuids (its OpenAPI: `format: uuid`): checked
// before one goes into a path, a query or a job id, so `..` or `a/b` never reaches a URL.
export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const isUuid = (raw: string): boolean => UUID.test(raw);
