export * from './client.ts';
export * from './enums.ts';
export * from './errors.ts';
export * from './fields.ts';
export type { HttpAnswer, HttpCall } from './http.ts';
export { paginate } from './paginate.ts';
export { DEFAULT_RETRY_POLICY, type RetryPolicy, requestRetryPlan } from './retry.ts';
export type {
  Bridge,
  BridgeColumn,
  BridgeColumnMetadata,
  BridgeRow,
  BridgeSignal,
  BridgeSummary,
  BuyerBrief,
  ColumnValue,
  Page,
} from './schemas.ts';
export { findState, STATES, toStateMappingName } from './states.ts';
export type { AttemptEvent } from './transport.ts';
