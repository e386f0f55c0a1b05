import type { AuditEntry } from '../audit/audit-log.ts';
import { html } from '../html/html.ts';
import { formatDateTime } from '../i18n/format.ts';
import { auditLine } from './audit-line.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { ROLES } from './roles.ts';
import type { TeamMember } from './team-members.ts';
import { DASHBOARD_TEXT } from './texts.ts';

/** The Team page (admins only): the account's members and the staff's latest actions. */
export function teamPage(chrome: Chrome, view: { members: TeamMember[]; activity: AuditEntry[]; error?: string; saved?: boolean }): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const when = (d: Date) => html`<time datetime="${d.toISOString()}">${formatDateTime(d, chrome.lang)}</time>`;
  const csrf = html`<input type="hidden" name="csrf" value="${chrome.csrf}">`;
  const members = view.members.map(
    (m) => html`<tr><td>${m.email}</td><td>${t.roleNames[m.role]}</td><td>${m.lastSignIn ? when(m.lastSignIn) : t.never}</td>
<td><form method="post" action="/dashboard/team/members/${m.id}">${csrf}<label for="role-${m.id}" class="muted">${t.roleOf(m.email)}</label>
<select id="role-${m.id}" name="role">${ROLES.map((r) => html`<option value="${r}"${r === m.role ? html` selected` : ''}>${t.roleNames[r]}</option>`)}</select>
<button type="submit" class="secondary">${t.changeRole}</button></form>
<form method="post" action="/dashboard/team/members/${m.id}">${csrf}<input type="hidden" name="remove" value="yes"><button type="submit" class="secondary" aria-label="${t.removeMember(m.email)}">${t.remove}</button></form></td></tr>`,
  );
  const activity = view.activity.map(
    (a) => html`<tr><td>${when(a.createdAt)}</td><td>${auditLine(chrome.lang, a)}</td><td>${a.subject ?? '—'}</td></tr>`,
  );
  const body = html`<h1>${t.team}</h1>
${view.saved ? html`<div class="ok" role="status">${t.memberSaved}</div>` : ''}
${view.error ? html`<div class="alert" role="alert">${view.error}</div>` : ''}
<section class="card" aria-labelledby="members"><h2 id="members">${t.members}</h2>
<div class="scroll" tabindex="0" role="region" aria-label="${t.members}"><table class="list" aria-labelledby="members"><thead><tr><th scope="col">${t.email}</th><th scope="col">${t.role}</th><th scope="col">${t.lastSignIn}</th><th scope="col"><span class="muted">${t.action}</span></th></tr></thead><tbody>${members}</tbody></table></div>
</section>
<section class="card" aria-labelledby="activity"><h2 id="activity">${t.activity}</h2>
<p class="muted">${t.activityHint}</p>
${
  activity.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${t.activity}"><table class="list" aria-labelledby="activity"><thead><tr><th scope="col">${t.when}</th><th scope="col">${t.action}</th><th scope="col">${t.subject}</th></tr></thead><tbody>${activity}</tbody></table></div>`
    : html`<p>${t.noActivity}</p>`
}
</section>`;
  return dashboardPage(chrome, t.team, body);
}
