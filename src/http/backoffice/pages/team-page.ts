import type { AuditEntry } from '../../../audit/audit-repository.ts';
import { isUuid, toPublicId } from '../../../domain/ids.ts';
import { html, type SafeHtml } from '../../../html/html.ts';
import { formatDateTime } from '../../../i18n/format.ts';
import { auditLine } from './audit-line.ts';
import { dashboardPage, type Chrome } from './layout.ts';
import { ROLES } from '../roles.ts';
import type { Invitation } from '../../../staff/invitations.ts';
import type { TeamMember } from '../../../staff/team-members.ts';
import { DASHBOARD_TEXT } from '../texts.ts';

export interface TeamView {
  members: TeamMember[];
  invitations: Invitation[];
  activity: AuditEntry[];
  error?: string;
  saved?: boolean;
  /** After an invitation: sent by e-mail, or not (then its link, shown this once), or revoked. */
  invited?: { email: string; link?: string } | 'revoked';
  /** The invitation form as typed, after a refusal (`inviteError` names the field). */
  typed?: { email: string; role: string };
  inviteError?: string;
}

/** The Team page (admins only): the account's members, invitations, and the staff's latest actions. */
export function teamPage(chrome: Chrome, view: TeamView): string {
  const t = DASHBOARD_TEXT[chrome.lang];
  const when = (d: Date) => html`<time datetime="${d.toISOString()}">${formatDateTime(d, chrome.lang, chrome.timeZone)}</time>`;
  const csrf = html`<input type="hidden" name="csrf" value="${chrome.csrf}">`;
  const members = view.members.map(
    (m) => html`<tr><td>${m.email}</td><td>${t.roleNames[m.role]}</td><td>${m.lastSignIn ? when(m.lastSignIn) : t.never}</td>
<td><form method="post" action="/dashboard/team/members/${m.id}">${csrf}<label for="role-${m.id}" class="muted">${t.roleOf(m.email)}</label>
<select id="role-${m.id}" name="role">${ROLES.map((r) => html`<option value="${r}"${r === m.role ? html` selected` : ''}>${t.roleNames[r]}</option>`)}</select>
<button type="submit" class="secondary">${t.changeRole}</button></form>
<form method="post" action="/dashboard/team/members/${m.id}">${csrf}<input type="hidden" name="remove" value="yes"><button type="submit" class="secondary" aria-label="${t.removeMember(m.email)}">${t.remove}</button></form></td></tr>`,
  );
  const invitations = view.invitations.map(
    (i) => html`<tr><td>${i.email}</td><td>${t.roleNames[i.role]}</td><td>${i.invitedBy}</td><td>${when(i.expiresAt)}</td>
<td><form method="post" action="/dashboard/team/invitations/${i.id}/revoke">${csrf}<button type="submit" class="secondary" aria-label="${t.revokeInvitation(i.email)}">${t.revoke}</button></form></td></tr>`,
  );
  const invited = view.invited;
  const typedRole = view.typed?.role ?? 'support';
  const activity = view.activity.map((a) => html`<tr><td>${when(a.createdAt)}</td><td>${auditLine(chrome.lang, a)}</td><td>${subjectCell(a)}</td></tr>`);
  const body = html`<h1>${t.team}</h1>
${view.saved ? html`<div class="ok" role="status">${t.memberSaved}</div>` : ''}
${view.error ? html`<div class="alert" role="alert">${view.error}</div>` : ''}
${invited === 'revoked' ? html`<div class="ok" role="status">${t.invitationRevoked}</div>` : ''}
${
  invited && invited !== 'revoked'
    ? invited.link
      ? html`<div class="ok" role="status">${t.invitationNotSent(invited.email)}<br><code>${invited.link}</code></div>`
      : html`<div class="ok" role="status">${t.invitationSent(invited.email)}</div>`
    : ''
}
<section class="card" aria-labelledby="members"><h2 id="members">${t.members}</h2>
<div class="scroll" tabindex="0" role="region" aria-label="${t.members}"><table class="list" aria-labelledby="members"><thead><tr><th scope="col">${t.email}</th><th scope="col">${t.role}</th><th scope="col">${t.lastSignIn}</th><th scope="col"><span class="muted">${t.action}</span></th></tr></thead><tbody>${members}</tbody></table></div>
</section>
<section class="card" aria-labelledby="invite"><h2 id="invite">${t.invite}</h2>
<p class="muted">${t.inviteHint}</p>
${view.inviteError ? html`<div class="alert" role="alert" id="invite-error">${view.inviteError}</div>` : ''}
<form method="post" action="/dashboard/team/invitations">${csrf}
<p><label for="invite-email">${t.email}</label><input id="invite-email" name="email" type="email" autocomplete="off" required maxlength="254" value="${view.typed?.email ?? ''}"${view.inviteError ? html` aria-invalid="true" aria-describedby="invite-error"` : ''}></p>
<p><label for="invite-role">${t.role}</label><select id="invite-role" name="role">${ROLES.map((r) => html`<option value="${r}"${r === typedRole ? html` selected` : ''}>${t.roleNames[r]}</option>`)}</select></p>
<p><button type="submit">${t.inviteButton}</button></p>
</form>
<h3 id="pending">${t.invitations}</h3>
${
  invitations.length
    ? html`<div class="scroll" tabindex="0" role="region" aria-label="${t.invitations}"><table class="list" aria-labelledby="pending"><thead><tr><th scope="col">${t.email}</th><th scope="col">${t.role}</th><th scope="col">${t.invitedBy}</th><th scope="col">${t.expires}</th><th scope="col"><span class="muted">${t.action}</span></th></tr></thead><tbody>${invitations}</tbody></table></div>`
    : html`<p>${t.noInvitation}</p>`
}
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

/** Actions whose subject is a purchase's bare id: shown as a link to its page, by its public id. */
const PURCHASE_SUBJECTS: ReadonlySet<string> = new Set(['refund', 'cancel', 'transfer_received']);

function subjectCell(entry: { action: string; subject: string | null }): SafeHtml | string {
  if (entry.subject === null) return '—';
  if (!PURCHASE_SUBJECTS.has(entry.action) || !isUuid(entry.subject)) return entry.subject;
  const uid = toPublicId('pur', entry.subject);
  return html`<a href="/dashboard/purchases/${uid}">${uid}</a>`;
}
