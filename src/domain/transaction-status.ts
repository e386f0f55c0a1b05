/** A PSP transaction's status, as connectors report it (the connector contract's `TransactionStatus`). */
export type PspStatus = 'requires_action' | 'authorized' | 'captured' | 'voided' | 'refunded' | 'declined' | 'expired';

/** The transaction status words of back-mode notifications (docs/webhooks.md#back-mode-notification). */
export type BackModeStatus = 'authorized' | 'completed' | 'failed' | 'voided' | 'refunded';

/** Back-mode status of a PSP outcome; undefined while 3-D Secure is pending (not an outcome yet). */
export function backModeStatus(status: PspStatus): BackModeStatus | undefined {
  switch (status) {
    case 'authorized':
      return 'authorized';
    case 'captured':
      return 'completed';
    case 'voided':
    case 'expired':
      return 'voided';
    case 'refunded':
      return 'refunded';
    case 'declined':
      return 'failed';
    case 'requires_action':
      return undefined;
  }
}
