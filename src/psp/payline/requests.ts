import { soapEnvelope, type XmlMessage } from './soap.ts';

/**
 * The top-level elements of each request message this connector sends, in the order of the
 * request element's `<sequence>` in Payline's WSDL (WSDL of Monext's SDKs 4.77,
 * `src/Payline/wsdl/DirectPaymentAPI.wsdl`: docs/psp/payline.md, "Request envelopes"). Payline's
 * schema asks for every element that has no `minOccurs="0"`, even those the connector has nothing
 * for: those are sent empty as `xsi:nil="true"`, as both official SDKs do. The marks:
 * - `name`: required and not nillable; the connector must give it;
 * - `name*`: required and nillable (`nillable="true"`); nil when the connector gives none;
 * - `name?`: `minOccurs="0"`; left out when the connector gives none.
 * The derived schema the fake validates against (test/psp/fixtures/payline/) is generated for
 * exactly these operations, and a test compares this table with it.
 */
export const REQUESTS = {
  createWallet: ['version', 'contractNumber', 'wallet', 'buyer*', 'owner*', 'privateDataList*', 'authentication3DSecure*', 'media*', 'contractNumberWalletList*', 'transactionID*'],
  getWallet: ['version', 'contractNumber', 'walletId', 'cardInd*', 'media*'],
  verifyEnrollment: [
    'transient*',
    'version',
    'card',
    'payment',
    'orderRef',
    'mdFieldValue*',
    'userAgent*',
    'walletId*',
    'walletCardInd*',
    'generateVirtualCvx?',
    'merchantName*',
    'merchantURL?',
    'merchantCountryCode?',
    'returnURL*',
    'order*',
    'buyer?',
    'subMerchant?',
    'recurring*',
    'threeDSInfo*',
    'merchantScore*',
    'privateDataList*',
  ],
  doAuthorizationRedirect: [
    'version',
    'payment',
    'card',
    'returnURL',
    'cancelURL',
    'order',
    'notificationURL*',
    'privateDataList*',
    'languageCode*',
    'buyer?',
    'owner*',
    'securityMode*',
    'recurring*',
    'merchantName*',
    'subMerchant*',
    'miscData*',
    'asynchronousRetryTimeout*',
  ],
  doImmediateWalletPayment: [
    'version',
    'payment',
    'order',
    'buyer*',
    'walletId',
    'cardInd*',
    'cvx*',
    'recurring?',
    'privateDataList*',
    'media*',
    'authentication3DSecure*',
    'subMerchant*',
    'linkedTransactionId*',
    'threeDSInfo*',
    'travelFileNumber?',
  ],
  doCapture: ['version', 'transactionID', 'payment', 'privateDataList*', 'sequenceNumber*', 'media*', 'miscData*'],
  doReset: ['version', 'transactionID', 'comment*', 'media*', 'amount*', 'currency*', 'privateDataList?', 'sequenceNumber*'],
  doRefund: ['version', 'transactionID', 'payment', 'comment*', 'privateDataList*', 'sequenceNumber*', 'media*', 'details?', 'miscData*'],
  getWebPaymentDetails: ['version', 'token'],
  getTransactionDetails: ['version', 'transactionId*', 'orderRef*', 'startDate*', 'endDate*', 'transactionHistory*', 'archiveSearch*'],
} as const satisfies Record<string, readonly string[]>;

export type PaylineOperation = keyof typeof REQUESTS;

type Element<S extends string> = S extends `${infer N}*` ? N : S extends `${infer N}?` ? N : S;
/** The elements an operation's request may carry. */
export type RequestFields<Op extends PaylineOperation> = Partial<Record<Element<(typeof REQUESTS)[Op][number]>, XmlMessage[string]>>;

/**
 * The complete request message of `operation`: every element of its sequence, in order, the
 * connector's value where it gives one, nil for the other nillable ones, the `minOccurs="0"` ones
 * it does not give left out. Throws on a required element left without a value or on an element
 * the sequence does not have (a mistake in the connector, never an input).
 */
export function requestMessage<Op extends PaylineOperation>(operation: Op, fields: RequestFields<Op>): XmlMessage {
  const given: Record<string, XmlMessage[string]> = { ...fields };
  const out: Record<string, XmlMessage[string]> = {};
  for (const entry of REQUESTS[operation] as readonly string[]) {
    const name = entry.replace(/[*?]$/, '');
    const value = given[name];
    delete given[name];
    if (value !== undefined && value !== null) out[name] = value;
    else if (entry.endsWith('*')) out[name] = null;
    else if (!entry.endsWith('?')) throw new TypeError(`${operation}Request needs ${name}`);
  }
  const extra = Object.keys(given);
  if (extra.length > 0) throw new TypeError(`${operation}Request has no element ${extra.join(', ')}`);
  return out;
}

/** The SOAP envelope of `operation`'s complete request message. */
export function requestEnvelope<Op extends PaylineOperation>(operation: Op, fields: RequestFields<Op>): string {
  return soapEnvelope(`${operation}Request`, requestMessage(operation, fields));
}
