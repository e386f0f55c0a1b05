/**
 * The part of midtrans-client 1.4.3 (CommonJS, no type declarations of its own) the connector
 * uses, as its source declares it (node_modules/midtrans-client/lib: coreApi.js, transaction.js,
 * httpClient.js, apiConfig.js, midtransError.js).
 */
declare module 'midtrans-client' {
  /** The part of the SDK's axios instance the connector sets (axios is the SDK's dependency, not ours). */
  export interface SdkAxios {
    defaults: { adapter?: unknown; env?: Record<string, unknown>; maxRedirects?: number; timeout?: number };
    interceptors: { request: { use(onFulfilled: (config: { method?: string; data?: unknown }) => { method?: string; data?: unknown }): number } };
  }

  export interface MidtransOptions {
    isProduction: boolean;
    serverKey: string;
    clientKey: string;
  }

  type Params = Record<string, unknown>;

  export class CoreApi {
    constructor(options: MidtransOptions);
    apiConfig: { getCoreApiBaseUrl(): string };
    httpClient: { http_client: SdkAxios };
    transaction: {
      status(transactionId: string): Promise<Params>;
      cancel(transactionId: string): Promise<Params>;
      refund(transactionId: string, parameter: Params): Promise<Params>;
      refundDirect(transactionId: string, parameter: Params): Promise<Params>;
    };
    charge(parameter: Params): Promise<Params>;
    capture(parameter: Params): Promise<Params>;
    cardToken(parameter: Params): Promise<Params>;
    cardRegister(parameter: Params): Promise<Params>;
  }

  export class MidtransError extends Error {
    httpStatusCode: number | string | null;
    ApiResponse: unknown;
    rawHttpClientData: unknown;
  }

  const midtransClient: { CoreApi: typeof CoreApi; MidtransError: typeof MidtransError };
  export default midtransClient;
}
