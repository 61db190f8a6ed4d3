/**
 * Labels (docs/inbox-api.md §4 "Labels"): admins make, rename, recolour and delete them; anyone with
 * access to a conversation sets its labels. A colour is one of a fixed list of names. Every change reaches
 * every open inbox: `labels.changed` for the list of labels, `conversation.changed` for a conversation's.
 */
import { randomBytes } from 'node:crypto';
import { ContractError } from '../../errors';
import { b64uEncode } from '../../crypto/encoding';
import { LABEL_COLORS, type Label, type LabelColor } from '../../inbox-api/records';
import type { Account } from '../db/accounts';
import type { Queryable } from '../db/database';
import { uniquely } from '../db/errors';
import { appendLiveEvent } from '../db/live-events';
import type { StoreDeps } from '../deps';

export const MAX_LABELS = 100;

export async function listLabels(db: Queryable): Promise<Label[]> {
	const rows = await db.query<{ label_id: string; name: string; color: LabelColor }>(
		'select label_id, name, color from labels order by lower(name)'
	);
	return rows.map((row) => ({ labelId: row.label_id, name: row.name, color: row.color }));
}

/** A name of the team's vocabulary (a label's, a team's): 1 to 40 characters without control characters, trimmed. */
export function parseShortName(value: unknown): string {
	const name = typeof value === 'string' ? value.trim() : '';
	if (name.length < 1 || name.length > 40 || [...name].some((character) => character < ' '))
		throw new ContractError('INVALID_REQUEST', 'name must be 1 to 40 characters');
	return name;
}

/** A label's name and colour from an admin's body; either may be left out when `partial`. */
export function parseLabelFields(body: Record<string, unknown>, partial: boolean): Partial<Pick<Label, 'name' | 'color'>> {
	const fields: Partial<Pick<Label, 'name' | 'color'>> = {};
	if (body.name !== undefined || !partial) fields.name = parseShortName(body.name);
	if (body.color !== undefined || !partial) {
		if (!LABEL_COLORS.includes(body.color as LabelColor))
			throw new ContractError('INVALID_REQUEST', `color must be one of ${LABEL_COLORS.join(', ')}`);
		fields.color = body.color as LabelColor;
	}
	return fields;
}

export async function createLabel(deps: StoreDeps, fields: Pick<Label, 'name' | 'color'>): Promise<Label> {
	const now = new Date(deps.now());
	return uniquely('another label has this name', () =>
		deps.db.transaction(async (tx) => {
			const [{ n }] = await tx.query<{ n: number }>('select count(*)::int as n from labels');
			if (n >= MAX_LABELS) throw new ContractError('STATE_CONFLICT', `a team has at most ${MAX_LABELS} labels`);
			const label: Label = { labelId: `lbl_${b64uEncode(randomBytes(9))}`, ...fields };
			await tx.query('insert into labels (label_id, name, color, created_at) values ($1, $2, $3, $4)', [
				label.labelId,
				label.name,
				label.color,
				now
			]);
			await appendLiveEvent(tx, 'labels.changed', null, {}, now);
			return label;
		})
	);
}

export async function updateLabel(deps: StoreDeps, labelId: string, fields: Partial<Pick<Label, 'name' | 'color'>>): Promise<void> {
	const now = new Date(deps.now());
	await uniquely('another label has this name', () =>
		deps.db.transaction(async (tx) => {
			const rows = await tx.query(
				'update labels set name = coalesce($2, name), color = coalesce($3, color) where label_id = $1 returning label_id',
				[labelId, fields.name ?? null, fields.color ?? null]
			);
			if (rows.length === 0) throw new ContractError('NOT_FOUND', `no label ${labelId}`);
			await appendLiveEvent(tx, 'labels.changed', null, {}, now);
		})
	);
}

/** Deletes a label and takes it off every conversation. */
export async function deleteLabel(deps: StoreDeps, labelId: string): Promise<void> {
	const now = new Date(deps.now());
	await deps.db.transaction(async (tx) => {
		const conversations = await tx.query<{ conversation_id: string }>(
			'select conversation_id from conversation_labels where label_id = $1',
			[labelId]
		);
		const rows = await tx.query('delete from labels where label_id = $1 returning label_id', [labelId]);
		if (rows.length === 0) throw new ContractError('NOT_FOUND', `no label ${labelId}`);
		await appendLiveEvent(tx, 'labels.changed', null, {}, now);
		for (const { conversation_id } of conversations) {
			await appendLiveEvent(tx, 'conversation.changed', conversation_id, { conversationId: conversation_id }, now);
		}
	});
}

/** Sets a conversation's labels to exactly `labelIds` (known labels only). */
export async function setConversationLabels(deps: StoreDeps, actor: Account, conversationId: string, labelIds: unknown): Promise<void> {
	if (!Array.isArray(labelIds) || labelIds.length > MAX_LABELS || !labelIds.every((id) => typeof id === 'string')) {
		throw new ContractError('INVALID_REQUEST', 'labelIds must be a list of label ids');
	}
	const now = new Date(deps.now());
	const wanted = [...new Set(labelIds as string[])];
	await deps.db.transaction(async (tx) => {
		const [exists] = await tx.query('select 1 from conversations where conversation_id = $1 for update', [conversationId]);
		if (!exists) throw new ContractError('NOT_FOUND', `no conversation ${conversationId}`);
		const known = await tx.query<{ label_id: string }>('select label_id from labels where label_id = any($1::text[])', [wanted]);
		if (known.length !== wanted.length) throw new ContractError('INVALID_REQUEST', 'labelIds names a label that does not exist');
		await tx.query('delete from conversation_labels where conversation_id = $1 and label_id <> all($2::text[])', [conversationId, wanted]);
		await tx.query(
			`insert into conversation_labels (conversation_id, label_id, added_at) select $1, unnest($2::text[]), $3 on conflict do nothing`,
			[conversationId, wanted, now]
		);
		await appendLiveEvent(tx, 'conversation.changed', conversationId, { conversationId }, now);
	});
}
