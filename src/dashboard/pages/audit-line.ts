import type { AuditEntry } from '../../audit/audit-repository.ts';
import type { Lang } from '../../i18n/lang.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

/** "Refund requested, by ana@shop.example": an action is shown by its label, raw if it has none yet. */
export function auditLine(lang: Lang, entry: Pick<AuditEntry, 'action' | 'actor'>): string {
  const t = DASHBOARD_TEXT[lang];
  return t.staffAction(entry.actor, t.auditActions[entry.action] ?? entry.action);
}
