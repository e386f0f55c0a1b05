/**
 * A back-office user's role (docs/back-office.md#roles): stored with the user
 * (accounts/dashboard-user-repository.ts), what each may open is http/backoffice/roles.ts. `admin`
 * and `support` are a merchant's (invited from the Team page); `operator` is the operator's staff,
 * given by the operator's command line only (`chipin dashboard set-role`), who open the operator's
 * pages (docs/back-office.md#the-operators-pages).
 */
export type Role = 'admin' | 'support' | 'operator';

/** A merchant's roles: what its Team page invites and sets. */
export type MerchantRole = Exclude<Role, 'operator'>;
