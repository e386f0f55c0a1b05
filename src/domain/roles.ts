/**
 * A back-office user's role (docs/back-office.md#roles): stored with the user
 * (accounts/dashboard-user-repository.ts), what each may open is http/backoffice/roles.ts.
 */
export type Role = 'admin' | 'support';
