import type { Generated } from 'kysely';

/**
 * The tables as the migrations (`migrations/`) leave them: every column, its PostgreSQL type,
 * `null` when it may be NULL, `default` when the database fills it when an INSERT leaves it out
 * (a default or an identity). `test/db/schema.test.ts` compares this with information_schema of
 * a migrated database on PGlite and on PostgreSQL, so a migration that adds, drops or retypes a
 * column fails the tests until this says the same.
 *
 * The types below derive from it: {@link Row} (a row as both drivers answer it) for the
 * repositories' row types, and {@link Tables} for the Kysely query builder (`db/query.ts`).
 */
export const TABLES = {
  accounts: {
    id: 'uuid',
    name: 'text',
    created_at: 'timestamptz default',
    time_zone: 'text default',
    country: 'text null',
  },
  api_keys: {
    id: 'text',
    account_id: 'uuid',
    secret_hash: 'bytea',
    created_at: 'timestamptz default',
    revoked_at: 'timestamptz null',
  },
  audit_log: {
    id: 'uuid',
    account_id: 'uuid',
    user_id: 'uuid null',
    actor: 'text',
    action: 'text',
    subject: 'text null',
    details: 'jsonb default',
    created_at: 'timestamptz default',
  },
  auth_throttle: {
    scope: 'text',
    subject: 'text',
    failures: 'int4 default',
    pending: 'int4 default',
    resets_at: 'timestamptz',
  },
  clients: {
    id: 'uuid',
    account_id: 'uuid',
    ref: 'text null',
    email: 'text',
    first_name: 'text null',
    last_name: 'text null',
    created_at: 'timestamptz default',
    updated_at: 'timestamptz default',
  },
  dashboard_invitations: {
    id: 'uuid',
    account_id: 'uuid',
    email: 'text',
    role: 'text',
    token_hash: 'bytea',
    invited_by: 'text',
    created_at: 'timestamptz default',
    expires_at: 'timestamptz',
    accepted_at: 'timestamptz null',
    revoked_at: 'timestamptz null',
  },
  dashboard_sessions: {
    id: 'uuid',
    token_hash: 'bytea',
    account_id: 'uuid',
    user_id: 'uuid',
    created_at: 'timestamptz default',
    expires_at: 'timestamptz',
    revoked_at: 'timestamptz null',
  },
  dashboard_users: {
    id: 'uuid',
    account_id: 'uuid',
    email: 'text',
    password_hash: 'text',
    created_at: 'timestamptz default',
    role: 'text default',
  },
  deliveries: {
    id: 'uuid',
    account_id: 'uuid',
    purchase_id: 'uuid',
    event_id: 'int8',
    kind: 'text',
    trigger_name: 'text null',
    url: 'text',
    payload: 'text',
    status: 'text',
    attempts: 'int4 default',
    failures: 'int4 default',
    next_attempt_at: 'timestamptz null',
    locked_until: 'timestamptz null',
    lease_id: 'uuid null',
    last_status_code: 'int4 null',
    last_error: 'text null',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
    completed_at: 'timestamptz null',
  },
  delivery_attempts: {
    id: 'int8 default',
    account_id: 'uuid',
    delivery_id: 'uuid',
    attempt: 'int4',
    url: 'text',
    started_at: 'timestamptz',
    duration_ms: 'int4',
    status_code: 'int4 null',
    response_excerpt: 'text null',
    error: 'text null',
    outcome: 'text',
    next_attempt_at: 'timestamptz null',
  },
  idempotency_keys: {
    account_id: 'uuid',
    scope: 'text',
    key: 'text',
    request_hash: 'text',
    response_status: 'int4 null',
    response_body: 'text null',
    created_at: 'timestamptz default',
    expires_at: 'timestamptz',
  },
  installments: {
    id: 'uuid',
    account_id: 'uuid',
    purchase_id: 'uuid',
    index: 'int4',
    due_date: 'date',
    amount_cents: 'int8',
    fees_cents: 'int8',
    state: 'text',
    attempts: 'int4 default',
    payment_id: 'uuid null',
    paid_at: 'timestamptz null',
    shopper_payment_id: 'uuid null',
  },
  jobs: {
    id: 'int8 default',
    account_id: 'uuid null',
    kind: 'text',
    dedupe_key: 'text',
    run_at: 'timestamptz',
    payload: 'jsonb default',
    attempts: 'int4 default',
    locked_until: 'timestamptz null',
    lease_id: 'uuid null',
    last_error: 'text null',
    done_at: 'timestamptz null',
    failed_at: 'timestamptz null',
    created_at: 'timestamptz default',
  },
  master_key_check: {
    id: 'bool default',
    kcv: 'bytea',
    created_at: 'timestamptz default',
  },
  offers: {
    id: 'uuid',
    account_id: 'uuid',
    type: 'text',
    installments: 'int4 default',
    deferred_days: 'int4 default',
    currency: 'text default',
    fee_rate_bps: 'int4 default',
    fixed_fee_cents: 'int8 default',
    debit_rate_bps: 'int4 default',
    min_amount_cents: 'int8 default',
    max_amount_cents: 'int8 default',
    funding_cap_cents: 'int8 null',
    usury_ceiling_bps: 'int4 null',
    pot_deadline_hours: 'int4 default',
    expiry_hours: 'int4 default',
    max_attempts: 'int4 default',
    psp: 'text default',
    signing_secret_enc: 'text',
    created_at: 'timestamptz default',
    psp_account_id: 'uuid null',
    credit_lender: 'text null',
    withdrawal_days: 'int4 null',
  },
  outbound_messages: {
    id: 'uuid',
    account_id: 'uuid',
    purchase_id: 'uuid null',
    channel: 'text',
    recipient: 'text',
    subject: 'text null',
    body: 'text',
    accepted: 'bool',
    error: 'text null',
    provider_id: 'text null',
    created_at: 'timestamptz default',
    message_key: 'text null',
  },
  payment_methods: {
    id: 'uuid',
    account_id: 'uuid',
    purchase_id: 'uuid',
    psp: 'text',
    psp_method_id: 'text',
    brand: 'text',
    last4: 'text',
    exp_month: 'int4',
    exp_year: 'int4',
    created_at: 'timestamptz',
  },
  payments: {
    id: 'uuid',
    account_id: 'uuid',
    purchase_id: 'uuid',
    pledge_id: 'uuid null',
    purpose: 'text',
    psp: 'text',
    idempotency_key: 'text',
    psp_transaction_id: 'text null',
    amount_cents: 'int8',
    captured_cents: 'int8 default',
    refunded_cents: 'int8 default',
    status: 'text',
    decline_reason: 'text null',
    challenge_url: 'text null',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
    psp_method_id: 'text null',
    psp_return_url: 'text null',
    psp_account_id: 'uuid null',
    network_transaction_id: 'text null',
    psp_state: 'jsonb null',
  },
  pledges: {
    id: 'uuid',
    account_id: 'uuid',
    purchase_id: 'uuid',
    client_id: 'uuid null',
    name: 'text null',
    email: 'text null',
    phone_number: 'text null',
    amount_cents: 'int8',
    position: 'int4',
    state: 'text',
    paying_until: 'timestamptz null',
    payment_id: 'uuid null',
    paid_at: 'timestamptz null',
    reminded_at: 'timestamptz null',
    closed_reason: 'text null',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  psp_accounts: {
    id: 'uuid',
    account_id: 'uuid',
    psp: 'text',
    environment: 'text',
    label: 'text',
    credentials_enc: 'text',
    endpoint_url: 'text null',
    verified_at: 'timestamptz null',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  psp_operations: {
    scope: 'text',
    operation: 'text',
    idempotency_key: 'text',
    fingerprint: 'text',
    status: 'text',
    result: 'jsonb null',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  purchase_events: {
    id: 'int8 default',
    account_id: 'uuid',
    purchase_id: 'uuid',
    type: 'text',
    from_state: 'text null',
    to_state: 'text',
    data: 'jsonb default',
    created_at: 'timestamptz',
    dispatched_at: 'timestamptz null',
  },
  purchases: {
    id: 'uuid',
    account_id: 'uuid',
    offer_id: 'uuid',
    client_id: 'uuid',
    state: 'text',
    comment: 'text',
    ref: 'text null',
    title: 'text',
    subtitle: 'text null',
    description: 'text null',
    picture_url: 'text null',
    amount_cents: 'int8',
    currency: 'text',
    language: 'text',
    phone_number: 'text null',
    callback_url: 'text null',
    cancel_url: 'text null',
    notification_url: 'text null',
    metadata: 'jsonb default',
    products: 'jsonb default',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
    attempts: 'int4 default',
    leader_share_cents: 'int8 null',
    pot_deadline_at: 'timestamptz null',
    guarantee_payment_id: 'uuid null',
    payment_method_id: 'uuid null',
    error_notification_url: 'text null',
  },
  refund_allocations: {
    id: 'uuid',
    account_id: 'uuid',
    refund_id: 'uuid',
    purchase_id: 'uuid',
    position: 'int4',
    kind: 'text',
    payment_id: 'uuid null',
    installment_id: 'uuid null',
    payer: 'text',
    pledge_id: 'uuid null',
    amount_cents: 'int8',
    state: 'text',
    idempotency_key: 'text null',
    failure_reason: 'text null',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  refunds: {
    id: 'uuid',
    account_id: 'uuid',
    purchase_id: 'uuid',
    amount_cents: 'int8',
    reason: 'text null',
    state: 'text',
    failure_reason: 'text null',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  risk_rules: {
    account_id: 'uuid',
    offer_id: 'uuid null',
    rules: 'jsonb default',
    updated_at: 'timestamptz',
  },
  sandbox_clock: {
    id: 'bool default',
    offset_ms: 'int8 default',
    updated_at: 'timestamptz default',
  },
  sandbox_psp_idempotency: {
    operation: 'text',
    idempotency_key: 'text',
    fingerprint: 'text',
    result: 'jsonb null',
    created_at: 'timestamptz',
  },
  sandbox_psp_payment_methods: {
    id: 'text',
    behaviour: 'text',
    brand: 'text',
    last4: 'text',
    exp_month: 'int4',
    exp_year: 'int4',
    created_at: 'timestamptz',
  },
  sandbox_psp_transactions: {
    id: 'text',
    payment_method_id: 'text',
    off_session: 'bool',
    capture_mode: 'text',
    status: 'text',
    decline_code: 'text null',
    amount_cents: 'int8',
    currency: 'text',
    captured_cents: 'int8 default',
    refunded_cents: 'int8 default',
    return_url: 'text null',
    challenge_token: 'text null',
    expires_at: 'timestamptz null',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
  schema_migrations: {
    version: 'int4',
    name: 'text',
    applied_at: 'timestamptz default',
  },
  shopper_sessions: {
    id: 'uuid',
    token_hash: 'bytea',
    identity_kind: 'text',
    identity: 'text',
    created_at: 'timestamptz',
    expires_at: 'timestamptz',
    revoked_at: 'timestamptz null',
  },
  shopper_sign_in_requests: {
    id: 'uuid',
    identity_kind: 'text',
    identity: 'text',
    token_hash: 'bytea',
    browser_hash: 'bytea',
    return_path: 'text null',
    attempts: 'int4 default',
    created_at: 'timestamptz',
    expires_at: 'timestamptz',
    used_at: 'timestamptz null',
  },
  webhook_endpoints: {
    account_id: 'uuid',
    url: 'text',
    events: '_text',
    token_enc: 'text',
    secret_enc: 'text',
    disabled_at: 'timestamptz null',
    disabled_reason: 'text null',
    created_at: 'timestamptz',
    updated_at: 'timestamptz',
  },
} as const satisfies Record<string, Record<string, ColumnSpec>>;

/** PostgreSQL types in use (`udt_name`: `_text` is `text[]`). */
export type PgType = 'uuid' | 'text' | '_text' | 'int4' | 'int8' | 'bool' | 'bytea' | 'date' | 'timestamptz' | 'jsonb';
export type ColumnSpec = PgType | `${PgType} null` | `${PgType} default` | `${PgType} null default`;

export type TableName = keyof typeof TABLES;

/**
 * What the drivers answer for each type: int8 as a number (both adapters parse it so, refusing
 * anything beyond 2^53: `parseInt8`), `date` as whatever the driver gives (a string on PGlite, a
 * Date on pg), jsonb parsed.
 */
interface TsTypes {
  uuid: string;
  text: string;
  _text: string[];
  int4: number;
  int8: number;
  bool: boolean;
  bytea: Uint8Array;
  date: string | Date;
  timestamptz: Date;
  jsonb: unknown;
}

type BaseOf<S> = S extends `${infer P extends PgType} ${string}` ? P : S extends PgType ? S : never;
type ValueOf<S> = TsTypes[BaseOf<S>] | (S extends `${string} null${string}` ? null : never);

/** A row of the table as selected with `SELECT *`. */
export type Row<T extends TableName> = { -readonly [C in keyof (typeof TABLES)[T]]: ValueOf<(typeof TABLES)[T][C]> };

/** The schema as Kysely reads it: columns the database fills are optional on insert. */
export type Tables = {
  [T in TableName]: {
    -readonly [C in keyof (typeof TABLES)[T]]: (typeof TABLES)[T][C] extends `${string}default` ? Generated<ValueOf<(typeof TABLES)[T][C]>> : ValueOf<(typeof TABLES)[T][C]>;
  };
};

/**
 * A repository's hand-written row type, checked against its table: every field is a column of
 * the table, of the column's type or narrower (the union of values its CHECK allows), and may be
 * NULL exactly when the column may. For statements written as SQL text, whose rows Kysely does
 * not type: `type PledgeRow = RowType<'pledges', { … }>`.
 */
export type RowType<T extends TableName, R extends CheckedFields<T, R>> = R;
type CheckedFields<T extends TableName, R> = {
  [K in keyof R]: K extends keyof Row<T> ? (null extends Row<T>[K] ? (null extends R[K] ? Row<T>[K] : never) : Row<T>[K]) : never;
};
