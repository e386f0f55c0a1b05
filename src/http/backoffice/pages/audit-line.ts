import type { AuditEntry } from '../../../audit/audit-repository.ts';
import type { EnFr } from '../../../i18n/lang.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

/**
 * "Refund requested, by ana@shop.example": an action by its label (raw only for an action of a
 * later build read during a rolling upgrade), its actor in words: a person by their e-mail, an
 * API key by the end of its id, the operator's command line as such (docs/back-office.md#audit-log).
 */
export function auditLine(lang: EnFr, entry: Pick<AuditEntry, 'action' | 'actor'>): string {
  const t = DASHBOARD_TEXT[lang];
  return t.staffAction(actorText(lang, entry.actor), t.auditActions[entry.action] ?? entry.action);
}

function actorText(lang: EnFr, actor: string): string {
  const t = DASHBOARD_TEXT[lang].actors;
  if (actor === 'cli') return t.cli;
  const key = /^api_key:key_[0-9a-f-]*([0-9a-f]{4})$/.exec(actor);
  return key ? t.apiKey(key[1]!) : actor;
}
