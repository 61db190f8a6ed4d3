/**
 * Every `/v1` endpoint of contract 4 and docs/contract-gaps.md §4–§9, in one table.
 */
import { Router } from '../http/router';
import { createUpload, getDownload } from './attachments';
import { close, createInvite, getConversation, listConversations, markRead, reinvite, rewrap, typing } from './conversations';
import { listDeliveries, retryDelivery } from './deliveries';
import { history, send } from './messages';
import type { V1Route } from './request';
import { getRoster, listAgentWraps, uploadAgentWraps, uploadRoster } from './roster';

export const v1Routes = new Router<V1Route>()
	.add('POST', '/v1/invites', { run: createInvite, query: [] })
	.add('GET', '/v1/conversations', { run: listConversations, query: ['status', 'limit', 'cursor'] })
	.add('GET', '/v1/conversations/:id', { run: getConversation, query: [] })
	.add('POST', '/v1/conversations/:id/reinvite', { run: reinvite, query: [] })
	.add('POST', '/v1/conversations/:id/rewrap', { run: rewrap, query: [] })
	.add('GET', '/v1/conversations/:id/messages', { run: history, query: ['limit', 'before', 'after'] })
	.add('POST', '/v1/messages', { run: send, query: [] })
	.add('POST', '/v1/conversations/:id/read', { run: markRead, query: [] })
	.add('POST', '/v1/conversations/:id/typing', { run: typing, query: [] })
	.add('POST', '/v1/conversations/:id/close', { run: close, query: [] })
	.add('POST', '/v1/conversations/:id/attachments', { run: createUpload, query: [] })
	.add('GET', '/v1/conversations/:id/attachments/:attachmentId', { run: getDownload, query: [] })
	.add('POST', '/v1/conversations/:id/agent-wraps', { run: uploadAgentWraps, query: [] })
	.add('GET', '/v1/conversations/:id/agent-wraps', { run: listAgentWraps, query: [] })
	.add('POST', '/v1/roster', { run: uploadRoster, query: [] })
	.add('GET', '/v1/roster', { run: getRoster, query: [] })
	.add('GET', '/v1/deliveries', { run: listDeliveries, query: ['status', 'limit', 'cursor'] })
	.add('POST', '/v1/deliveries/:id/retry', { run: retryDelivery, query: [] });
