/**
 * Login, session and logout (docs/inbox-api.md §2): Argon2id verification in the worker thread, rate
 * limiting per address and per username, an HttpOnly SameSite=Strict cookie (Secure outside localhost).
 */
import { INBOX_API as API } from '../../inbox-api/endpoints';
import { ContractError } from '../../errors';
import { recordAudit } from '../audit/record';
import { findAccountForLogin } from '../db/accounts';
import { originIsLocalHttp } from '../config';
import { RateLimited, readJsonObject, BODY_LIMITS } from '../http/responses';
import { loginsThrottled } from '../metrics';
import { createSession, deleteSession, hashToken, SESSION_COOKIE, SESSION_MAX_MS, SIGNED_IN_COOKIE } from '../auth/sessions';
import * as unlockShares from '../auth/unlock-share';
import { b64uEncode } from '../../crypto/encoding';
import type { Inbox } from '../inbox';
import { requireSession, type ApiEvent, answer, handle } from './event';
import { sessionJson } from './views';
import { isRosterAgent } from '../conversations/access';

function cookieOptions(origin: string) {
	return { path: '/', httpOnly: true, sameSite: 'strict' as const, secure: !originIsLocalHttp(origin) };
}

/** The page's hint that a session may exist, so a signed-out load asks nothing (no secret: the token stays HttpOnly). */
function signedInCookieOptions(origin: string) {
	return { ...cookieOptions(origin), httpOnly: false };
}

function text(body: Record<string, unknown>, field: string, max: number): string {
	const value = body[field];
	if (typeof value !== 'string' || value.length === 0 || value.length > max) {
		throw new ContractError('INVALID_REQUEST', `${field} must be a non-empty string of at most ${max} characters`);
	}
	return value;
}

export const login = handle(API.login, async (event, inbox) => {
	const body = await readJsonObject(event.request, BODY_LIMITS.form);
	const username = text(body, 'username', 64);
	const password = text(body, 'password', 1024);
	const address = event.getClientAddress();
	const decision = await inbox.loginThrottle.begin(address, username, new Date(inbox.now()));
	if ('retryAfterSeconds' in decision) {
		loginsThrottled.inc();
		throw new RateLimited(`too many logins; try again in ${decision.retryAfterSeconds} s`, decision.retryAfterSeconds);
	}
	let found: Awaited<ReturnType<typeof findAccountForLogin>>;
	let valid = false;
	try {
		found = await findAccountForLogin(inbox.db, username);
		valid =
			found && !found.account.disabledAt
				? await inbox.passwords.verify(found.passwordHash, password)
				: await inbox.passwords.verifyNothing(password);
	} finally {
		await inbox.loginThrottle.finish(decision.attemptId, username, valid, new Date(inbox.now()));
	}
	if (!found || !valid) {
		await recordAudit(
			inbox.db,
			{ actor: null, actorName: username, action: 'session.login_failed', details: { address } },
			new Date(inbox.now())
		);
		inbox.log.warn('login failed', { address });
		throw new ContractError('INVALID_CREDENTIALS', 'the username or the password is wrong');
	}
	const expiresAt = await startSession(event, inbox, found.account.accountId);
	await recordAudit(inbox.db, { actor: found.account, action: 'session.login', details: { address } }, new Date(inbox.now()));
	inbox.log.info('login', { account: found.account.accountId });
	return answer(API.login, sessionJson(found.account, expiresAt, await isRosterAgent(inbox.db, found.account)));
});

/** A new session for the account and its cookie (login, and joining through an invitation). */
export async function startSession(event: ApiEvent, inbox: Inbox, accountId: string): Promise<Date> {
	const { token, expiresAt } = await createSession(inbox.db, accountId, new Date(inbox.now()));
	event.cookies.set(SESSION_COOKIE, token, { ...cookieOptions(inbox.config.origin), maxAge: SESSION_MAX_MS / 1000 });
	event.cookies.set(SIGNED_IN_COOKIE, '1', { ...signedInCookieOptions(inbox.config.origin), maxAge: SESSION_MAX_MS / 1000 });
	return expiresAt;
}

export const currentSession = handle(API.getSession, async (event, inbox) => {
	const session = requireSession(event);
	return answer(API.getSession, sessionJson(session.account, session.expiresAt, await isRosterAgent(inbox.db, session.account)));
});

export const logout = handle(API.logout, async (event, inbox) => {
	const token = event.cookies.get(SESSION_COOKIE);
	if (token) {
		await deleteSession(inbox.db, token);
		inbox.sessionCache.dropToken(hashToken(token));
	}
	event.cookies.delete(SESSION_COOKIE, cookieOptions(inbox.config.origin));
	event.cookies.delete(SIGNED_IN_COOKIE, signedInCookieOptions(inbox.config.origin));
	return answer(API.logout, undefined);
});

/** Where the calling session's unlock share is kept and how long it outlives the session's last open tab. */
const unlockShareOf = (event: ApiEvent, inbox: Inbox) =>
	[inbox.db, requireSession(event).tokenHash, new Date(inbox.now()), inbox.config.unlockShareGraceMs] as const;

/** The session's unlock share while one of its tabs is open, else null (§2 "Unlock once per browser session"). */
export const getUnlockShare = handle(API.getUnlockShare, async (event, inbox) => {
	const share = await unlockShares.currentUnlockShare(...unlockShareOf(event, inbox));
	return answer(API.getUnlockShare, { share: share && b64uEncode(share) });
});

/** A tab unlocked the key: the session's share, made when it has none. */
export const keepUnlockShare = handle(API.keepUnlockShare, async (event, inbox) => {
	const share = await unlockShares.keepUnlockShare(...unlockShareOf(event, inbox));
	return answer(API.keepUnlockShare, { share: b64uEncode(share) });
});

/** A tab locked: every tab of the session needs the passphrase again. */
export const dropUnlockShare = handle(API.dropUnlockShare, async (event, inbox) => {
	await unlockShares.dropUnlockShare(inbox.db, requireSession(event).tokenHash);
	return answer(API.dropUnlockShare, undefined);
});
