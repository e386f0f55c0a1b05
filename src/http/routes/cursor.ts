import { isStorableDate } from '../../domain/dates.ts';
import { isUuid } from '../../domain/ids.ts';

/** Opaque keyset cursor: the (created_at, id) of the last item of a page. */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } | undefined {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(iso ?? '');
  // A hand-made cursor may hold any date: only one both JS and PostgreSQL hold is a cursor.
  return id && isUuid(id) && isStorableDate(createdAt) ? { createdAt, id } : undefined;
}
