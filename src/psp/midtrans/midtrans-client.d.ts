/**
 * The part of midtrans-client 1.4.3 (CommonJS, no type declarations of its own) the connector
 * uses, as its source declares it (node_modules/midtrans-client/lib: coreApi.js, transaction.js,
 * httpClient.js, apiConfig.js, midtransError.js).
 */
declare module 'midtrans-client' {
  import type { AxiosInstance } from 'axios';

  export interface MidtransOptions {
    isProduction: boolean;
    serverKey: string;
    clientKey: string;
  }

  type Params = Record<string, unknown>;

  export class CoreApi {
    constructor(options: MidtransOptions);
    apiConfig: { getCoreApiBaseUrl(): string };
    httpClient: { http_client: AxiosInstance };
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
