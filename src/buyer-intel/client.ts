// Size: one short method per provider operation, all over the same transport; splitting adds no clarity.
// Typed client of the Public-Sector Buyer Intelligence API (contract: the provider's API spec, gaps from
// its OpenAPI, copied with its source in test/fixtures/reference/). Every operation validates its response with zod; every failure is
// one of the error classes in errors.ts.
import type { z } from 'zod';
import { isUuid } from '../shared/ids.ts';
import type {
  BridgeFilterType,
  BridgeSortField,
  FilterOperation,
  RelativeDatePeriod,
  RowStatus,
  SignalFilterType,
  SignalSort,
  SortDirection,
} from './enums.ts';
import { InvalidArgumentError, NotFoundError } from './errors.ts';
import type { BuyerField } from './fields.ts';
import { type HttpCall, undiciCall } from './http.ts';
import { paginate } from './paginate.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.ts';
import {
  type Bridge,
  type BridgeColumnMetadata,
  type BridgeRow,
  type BridgeSignal,
  type BuyerAttributeResponse,
  type BuyerBrief,
  type BuyerSchemaResponse,
  type BuyerSummaryResponse,
  bridgeColumnMetadataListSchema,
  bridgeRowSchema,
  bridgeSchema,
  bridgeSignalSchema,
  buyerAttributeResponseSchema,
  buyerAttributesBulkResponseSchema,
  buyerCriteriaSearchResponseSchema,
  buyerSchemaResponseSchema,
  buyerSearchResponseSchema,
  buyerSummaryResponseSchema,
  type Page,
  paginationEnvelope,
} from './schemas.ts';
import type { RateGate } from './shared-rate.ts';
import { toStateMappingName } from './states.ts';
import { sleep, TokenBucket, type TokenBucketOptions } from './token-bucket.ts';
import { type AttemptEvent, type HttpMethod, Transport } from './transport.ts';

export interface BuyerIntelClientOptions {
  /** e.g. `https://dashboard.starbridge.ai`, or the sandbox's URL. */
  baseUrl: string;
  token: string;
  /** Per attempt. Default 10 s. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Client-side limiter; `false` disables it. Default 10 requests/s with bursts of 20. */
  rateLimit?: TokenBucketOptions | false;
  /** Paces every attempt instead of `rateLimit`'s bucket: e.g. the rate shared by every worker. */
  limiter?: RateGate;
  /** How `attribute` keys are sent: `repeat` (`attribute=A&attribute=B`, default) or `comma` (`attribute=A,B`). */
  attributeEncoding?: 'repeat' | 'comma';
  /** Other array parameters: `form` (comma-separated, as the reference declares; default) or `repeat`. */
  arrayEncoding?: 'form' | 'repeat';
  /** The HTTP call; default undici's request() (http.ts). A fetch fits too. */
  fetch?: HttpCall;
  userAgent?: string;
  /** Called after every HTTP attempt (metrics, logs). */
  onAttempt?: (event: AttemptEvent) => void;
  /** Test seams: jitter source and sleep. */
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface PageParams {
  pageNumber?: number;
  pageSize?: number;
}

export interface IterateOptions extends CallOptions {
  /** Stop after this many items. */
  limit?: number;
  pageSize?: number;
}

export interface QuickSearchParams {
  buyerName: string;
  /** Two-letter code, name or ISO 3166-2 code; sent as the provider's StateMapping name. */
  buyerStateCode?: string;
  limit?: number;
}

/** Criteria of `searchBuyersByCriteria`. The operation's shape is not shown in either document. */
export interface BuyerCriteria {
  name?: string;
  stateCode?: string;
  city?: string;
  type?: string;
  url?: string;
  emailDomain?: string;
  /**
   * A registry id, under its attribute key. A guess as well: a provider that does not take it answers
   * 400, or ignores it and answers buyers that do not hold it, so a caller checks what comes back.
   */
  NcesId?: string;
  IpedsIdNumeric?: string;
  CensusIdPid6?: string;
  CensusIdGidId?: string;
  limit?: number;
}

type Primitive = string | number | boolean;
export type BridgeFilterTerm =
  | {
      field: string;
      operation: Extract<FilterOperation, 'Equals' | 'DoesNotEqual' | 'Contains' | 'DoesNotContain'>;
      value: Primitive;
    }
  | { field: string; operation: Extract<FilterOperation, 'GreaterThan' | 'LessThan'>; value: Primitive }
  | {
      field: string;
      operation: Extract<
        FilterOperation,
        | 'Any'
        | 'None'
        | 'ContainsAny'
        | 'ContainsAll'
        | 'ContainedBy'
        | 'NotContainedBy'
        | 'HasCellStatus'
        | 'HasLookupStatus'
        | 'HasLastSyncStatus'
        | 'HasSyncStatusHistory'
      >;
      value: Primitive[];
    }
  | { field: string; operation: Extract<FilterOperation, 'IsEmpty' | 'IsNotEmpty'>; value?: null };

export interface RowSort {
  /** A column id, `rowUpdatedAt`, or one of the discouraged entry fields. */
  column: string;
  direction: SortDirection;
}

export interface ListBridgeRowsBody {
  filters?: { terms: BridgeFilterTerm[] } | null;
  sorts?: RowSort[] | null;
  query?: string | null;
}

export interface SignalFeedParams extends PageParams {
  /** Bridge ids. */
  triggerIds?: string[];
  filterType?: SignalFilterType[];
  /** The server defaults to `New`. */
  status?: RowStatus[];
  relativeDatePeriodFrom?: RelativeDatePeriod;
  sort?: SignalSort;
  /** Free text over signal name and column values (reference only). */
  query?: string;
}

export interface BuyerSignalsParams extends SignalFeedParams {
  buyerId: string;
}

export interface ListBridgesParams extends PageParams {
  sortField?: BridgeSortField;
  sortDirection?: SortDirection;
  query?: string;
  filterType?: BridgeFilterType[];
  createdByUserId?: string[];
  userIdsHaveAccessTo?: string[];
  buyerListId?: string[];
  viewMode?: string;
  folderId?: string;
}

const rowsPage = paginationEnvelope(bridgeRowSchema);
const signalsPage = paginationEnvelope(bridgeSignalSchema);
const bridgesPage = paginationEnvelope(bridgeSchema);

const seg = (value: string) => encodeURIComponent(value);

/**
 * A buyer, bridge or row id in a path: a uuid, as the provider's reference declares, or no call at all
 * (`..` would climb out of the path). No record can have another id, so it is a permanent not-found.
 */
const idSeg = (operation: string, what: string, value: string): string => {
  if (!isUuid(value))
    throw new NotFoundError(`${operation}: ${what} ${JSON.stringify(value.slice(0, 80))} is not a uuid`, {
      operation,
      status: undefined,
    });
  return value;
};

export class BuyerIntelClient {
  readonly #transport: Transport;
  readonly #attributeEncoding: 'repeat' | 'comma';
  readonly #arrayEncoding: 'form' | 'repeat';

  constructor(options: BuyerIntelClientOptions) {
    if (!options.baseUrl) throw new TypeError('BuyerIntelClient: baseUrl is required');
    if (!options.token) throw new TypeError('BuyerIntelClient: token is required');
    const rate = options.rateLimit === undefined ? { ratePerSecond: 10, burst: 1 } : options.rateLimit;
    this.#attributeEncoding = options.attributeEncoding ?? 'repeat';
    this.#arrayEncoding = options.arrayEncoding ?? 'form';
    this.#transport = new Transport({
      baseUrl: options.baseUrl,
      token: options.token,
      timeoutMs: options.timeoutMs ?? 10_000,
      retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
      limiter: options.limiter ?? (rate ? new TokenBucket(rate) : null),
      fetch: options.fetch ?? undiciCall,
      userAgent: options.userAgent ?? 'buyer-intel-sync',
      random: options.random ?? Math.random,
      sleep: options.sleep ?? sleep,
      onAttempt: options.onAttempt,
    });
  }

  // ---- Buyers --------------------------------------------------------------------------------------------

  /**
   * One buyer's attributes in one call. `attributes` selects keys; omitted or empty returns every
   * attribute. Unset attributes come back as null.
   */
  async getBuyerAttributesBulk(
    buyerId: string,
    attributes?: readonly BuyerField[],
    opts: CallOptions = {},
  ): Promise<{ buyerId: string; buyerData: Partial<Record<BuyerField, unknown>> | null }> {
    const query = new URLSearchParams();
    if (attributes?.length) this.#appendArray(query, 'attribute', attributes, this.#attributeEncoding);
    const res = await this.#call(
      'getBuyerAttributesBulk',
      'GET',
      `/api/external/buyer/${idSeg('getBuyerAttributes', 'buyerId', buyerId)}/attributes`,
      {
        query,
        schema: buyerAttributesBulkResponseSchema,
        ...opts,
      },
    );
    return {
      buyerId: res.buyerId,
      buyerData: (res.buyerData ?? null) as Partial<Record<BuyerField, unknown>> | null,
    };
  }

  /** One attribute of one buyer (reference only). Prefer the bulk call for more than one key. */
  getBuyerAttribute(
    buyerId: string,
    attribute: BuyerField,
    opts: CallOptions = {},
  ): Promise<BuyerAttributeResponse> {
    return this.#call(
      'getBuyerAttribute',
      'GET',
      `/api/external/buyer/${idSeg('getBuyerAttribute', 'buyerId', buyerId)}/attribute/${seg(attribute)}`,
      { schema: buyerAttributeResponseSchema, ...opts },
    );
  }

  /** Quick search by name, ordered by relevance. The state is converted to the provider's StateMapping name. */
  async searchBuyers(params: QuickSearchParams, opts: CallOptions = {}): Promise<{ buyers: BuyerBrief[] }> {
    if (!params.buyerName.trim()) {
      throw new InvalidArgumentError('searchBuyers: buyerName must not be empty', {
        operation: 'searchBuyers',
      });
    }
    const query = new URLSearchParams({ buyerName: params.buyerName });
    if (params.buyerStateCode)
      query.set('buyerStateCode', this.#state('searchBuyers', params.buyerStateCode));
    if (params.limit !== undefined) query.set('limit', String(params.limit));
    return this.#call('searchBuyers', 'GET', '/api/external/buyer/quick/search', {
      query,
      schema: buyerSearchResponseSchema,
      ...opts,
    });
  }

  /**
   * Finds buyers by structured criteria. Neither document shows this operation's path or shapes: we
   * send `POST /api/external/buyer/search` with the criteria as JSON and accept `{buyers}` or a
   * pagination envelope back.
   */
  async searchBuyersByCriteria(
    criteria: BuyerCriteria,
    opts: CallOptions = {},
  ): Promise<{ buyers: BuyerBrief[] }> {
    const body = {
      ...criteria,
      ...(criteria.stateCode ? { stateCode: this.#state('searchBuyersByCriteria', criteria.stateCode) } : {}),
    };
    const res = await this.#call('searchBuyersByCriteria', 'POST', '/api/external/buyer/search', {
      body,
      schema: buyerCriteriaSearchResponseSchema,
      ...opts,
    });
    return { buyers: res.buyers };
  }

  /**
   * Lists the attribute keys and what each returns. Path and shape are not shown in either document:
   * we call `GET /api/external/buyer/schema` and accept an array of descriptors or `{fields: [...]}`.
   */
  getBuyerSchema(opts: CallOptions = {}): Promise<BuyerSchemaResponse> {
    return this.#call('getBuyerSchema', 'GET', '/api/external/buyer/schema', {
      schema: buyerSchemaResponseSchema,
      ...opts,
    });
  }

  /** The provider's synthesized activity summary of a buyer (reference only). */
  getBuyerSummary(buyerId: string, opts: CallOptions = {}): Promise<BuyerSummaryResponse> {
    return this.#call(
      'getBuyerSummary',
      'GET',
      `/api/external/buyer/${idSeg('getBuyerSummary', 'buyerId', buyerId)}/summary`,
      {
        schema: buyerSummaryResponseSchema,
        ...opts,
      },
    );
  }

  // ---- Bridges -------------------------------------------------------------------------------------------

  listBridges(params: ListBridgesParams = {}, opts: CallOptions = {}): Promise<Page<Bridge>> {
    const query = new URLSearchParams();
    this.#setScalars(query, params, [
      'sortField',
      'sortDirection',
      'query',
      'viewMode',
      'folderId',
      'pageNumber',
      'pageSize',
    ]);
    for (const key of ['filterType', 'createdByUserId', 'userIdsHaveAccessTo', 'buyerListId'] as const) {
      const values = params[key];
      if (values?.length) this.#appendArray(query, key, values, this.#arrayEncoding);
    }
    return this.#call('listBridges', 'GET', '/api/external/bridge', { query, schema: bridgesPage, ...opts });
  }

  iterateBridges(
    params: Omit<ListBridgesParams, 'pageNumber'> = {},
    opts: IterateOptions = {},
  ): AsyncGenerator<Bridge> {
    return paginate(
      (pageNumber) =>
        this.listBridges({ ...params, pageNumber, pageSize: opts.pageSize ?? params.pageSize }, opts),
      opts,
    );
  }

  getBridge(bridgeId: string, opts: CallOptions = {}): Promise<Bridge> {
    return this.#call(
      'getBridge',
      'GET',
      `/api/external/bridge/${idSeg('getBridge', 'bridgeId', bridgeId)}`,
      {
        schema: bridgeSchema,
        ...opts,
      },
    );
  }

  /** Column ids, names and formats of a bridge: what filters and sorts of `listBridgeRows` refer to. */
  getBridgeColumnMetadata(bridgeId: string, opts: CallOptions = {}): Promise<BridgeColumnMetadata[]> {
    return this.#call(
      'getBridgeColumnMetadata',
      'GET',
      `/api/external/bridge/${idSeg('getBridgeColumnMetadata', 'bridgeId', bridgeId)}/column/metadata`,
      {
        schema: bridgeColumnMetadataListSchema,
        ...opts,
      },
    );
  }

  /** Rows of a bridge. An empty body returns all rows; pageSize is 1..100 (≤ 20 preferred). */
  listBridgeRows(
    bridgeId: string,
    body: ListBridgeRowsBody = {},
    page: PageParams = {},
    opts: CallOptions = {},
  ): Promise<Page<BridgeRow>> {
    const query = new URLSearchParams();
    this.#setScalars(query, page, ['pageNumber', 'pageSize']);
    return this.#call(
      'listBridgeRows',
      'PUT',
      `/api/external/bridge/${idSeg('listBridgeRows', 'bridgeId', bridgeId)}/row`,
      {
        query,
        body,
        schema: rowsPage,
        ...opts,
      },
    );
  }

  iterateBridgeRows(
    bridgeId: string,
    body: ListBridgeRowsBody = {},
    opts: IterateOptions = {},
  ): AsyncGenerator<BridgeRow> {
    return paginate(
      (pageNumber) =>
        this.listBridgeRows(bridgeId, body, { pageNumber, pageSize: opts.pageSize ?? 20 }, opts),
      opts,
    );
  }

  /** Moves one row to a new user-facing status (reference only). */
  setBridgeRowStatus(
    bridgeId: string,
    rowId: string,
    newStatus: RowStatus,
    opts: CallOptions = {},
  ): Promise<BridgeRow> {
    return this.#call(
      'setBridgeRowStatus',
      'PATCH',
      `/api/external/bridge/${idSeg('updateRowStatus', 'bridgeId', bridgeId)}/row/${idSeg('updateRowStatus', 'rowId', rowId)}/status`,
      {
        body: { newStatus },
        schema: bridgeRowSchema,
        ...opts,
      },
    );
  }

  // ---- Signal feeds --------------------------------------------------------------------------------------

  /** Recent signals of one buyer. Defaults (server side): status New, last month, newest first. */
  listRecentBuyerSignals(params: BuyerSignalsParams, opts: CallOptions = {}): Promise<Page<BridgeSignal>> {
    const query = this.#signalQuery(params);
    query.set('buyerId', params.buyerId);
    return this.#call('listRecentBuyerSignals', 'GET', '/api/external/feed/all/buyer-signals', {
      query,
      schema: signalsPage,
      ...opts,
    });
  }

  iterateRecentBuyerSignals(
    params: Omit<BuyerSignalsParams, 'pageNumber'>,
    opts: IterateOptions = {},
  ): AsyncGenerator<BridgeSignal> {
    return paginate(
      (pageNumber) =>
        this.listRecentBuyerSignals(
          { ...params, pageNumber, pageSize: opts.pageSize ?? params.pageSize },
          opts,
        ),
      opts,
    );
  }

  /** Top signals across all buyers of the caller's organization. Defaults: status New, last 7 days, hottest first. */
  listTopRecentSignals(params: SignalFeedParams = {}, opts: CallOptions = {}): Promise<Page<BridgeSignal>> {
    return this.#call('listTopRecentSignals', 'GET', '/api/external/feed/all/top-signals', {
      query: this.#signalQuery(params),
      schema: signalsPage,
      ...opts,
    });
  }

  iterateTopRecentSignals(
    params: Omit<SignalFeedParams, 'pageNumber'> = {},
    opts: IterateOptions = {},
  ): AsyncGenerator<BridgeSignal> {
    return paginate(
      (pageNumber) =>
        this.listTopRecentSignals(
          { ...params, pageNumber, pageSize: opts.pageSize ?? params.pageSize },
          opts,
        ),
      opts,
    );
  }

  // ---- Internals -----------------------------------------------------------------------------------------

  #signalQuery(params: SignalFeedParams): URLSearchParams {
    const query = new URLSearchParams();
    this.#setScalars(query, params, ['sort', 'relativeDatePeriodFrom', 'query', 'pageNumber', 'pageSize']);
    for (const key of ['triggerIds', 'filterType', 'status'] as const) {
      const values = params[key];
      if (values?.length) this.#appendArray(query, key, values, this.#arrayEncoding);
    }
    return query;
  }

  #setScalars<T extends object>(
    query: URLSearchParams,
    params: T,
    keys: readonly (keyof T & string)[],
  ): void {
    for (const key of keys) {
      const v = params[key];
      if (v !== undefined && v !== null && v !== '') query.set(key, String(v));
    }
  }

  #appendArray(
    query: URLSearchParams,
    name: string,
    values: readonly string[],
    style: 'repeat' | 'comma' | 'form',
  ): void {
    if (style === 'repeat') for (const v of values) query.append(name, v);
    else query.set(name, values.join(','));
  }

  #state(operation: string, input: string): string {
    try {
      return toStateMappingName(input);
    } catch (err) {
      throw new InvalidArgumentError(`${operation}: ${(err as Error).message}`, { operation });
    }
  }

  #call<S extends z.ZodType>(
    operation: string,
    method: HttpMethod,
    path: string,
    rest: { query?: URLSearchParams; body?: unknown; schema: S; signal?: AbortSignal },
  ): Promise<z.output<S>> {
    return this.#transport.request({ operation, method, path, ...rest });
  }
}
