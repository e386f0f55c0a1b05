import { describe, expect, it } from 'vitest';
import { AUDIT_ACTIONS } from '../../src/audit/audit-log.ts';
import { auditLine } from '../../src/http/backoffice/pages/audit-line.ts';

/**
 * How the purchase's history and the Team page's activity name an audit entry
 * (docs/back-office.md#audit-log): in words, in the page's language — never an action's code
 * name nor an API key's raw label.
 */
describe('an audit line', () => {
  it('names every action the log records in words, in English and French', () => {
    for (const action of AUDIT_ACTIONS) {
      for (const lang of ['en', 'fr'] as const) {
        const line = auditLine(lang, { action, actor: 'ana@shop.example' });
        const label = line.slice(0, line.lastIndexOf(','));
        expect(label, `${lang} ${action}`).not.toBe(action);
        expect(label, `${lang} ${action}`).not.toContain('_');
        expect(line).toMatch(lang === 'en' ? /, by ana@shop\.example$/ : /, par ana@shop\.example$/);
      }
    }
  });

  it('names an API key by the end of its id and the command line as the operator', () => {
    const key = { action: 'refund', actor: 'api_key:key_0b7c1f9e-4d2a-4c3b-9e8f-12ab34cd5e6f' };
    expect(auditLine('en', key)).toBe('Refund requested, by the API (key ending 5e6f)');
    expect(auditLine('fr', key)).toBe('Remboursement demandé, par l’API (clé se terminant par 5e6f)');
    expect(auditLine('en', { action: 'password_reset', actor: 'cli' })).toBe('Password reset, by the operator (command line)');
    expect(auditLine('fr', { action: 'risk_rules_update', actor: 'cli' })).toBe('Règles de risque modifiées, par l’opérateur (ligne de commande)');
  });

  it('shows an action of a later build (read during a rolling upgrade) as it is rather than nothing', () => {
    expect(auditLine('en', { action: 'something_new', actor: 'cli' })).toBe('something_new, by the operator (command line)');
  });
});
