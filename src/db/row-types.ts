import type { Generated } from 'kysely';
import type { PgType, TABLES } from './schema.ts';

/**
 * The types of the tables as `schema.ts` declares them: {@link Row} (a row as both drivers answer
 * it) for the repositories' row types ({@link RowType}), and {@link Tables} for the Kysely query
 * builder (`db/query.ts`).
 */

type TableName = keyof typeof TABLES;

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
type Row<T extends TableName> = { -readonly [C in keyof (typeof TABLES)[T]]: ValueOf<(typeof TABLES)[T][C]> };

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
