/**
 * Control API for the simulated customer app (docs/simulator.md; contract 4.3, 4.4, 6.3, 6.4):
 * the HTTP face of src/sim/customer, used by tests and by the page at `/_sim/app`.
 */
import {
	changeDevice,
	customerView,
	deleteCustomer,
	downloadAttachment,
	findCustomer,
	listMessages,
	markReadByCustomer,
	redeem,
	sendAttachment,
	sendText
} from '../customer/actions';
import { ContractError, isoSeconds } from '../../lib/crypto/index';
import type { Message } from '../state';
import { optionalString, requireField, type ControlRoute } from './types';

/** A file of 26,214,400 bytes in base64 and its JSON around it. */
const ATTACHMENT_BODY_BYTES = 36 * 1024 * 1024;

/** Standard base64 with its padding, decoded; null for anything else. Linear: a regex over 35 MB overflows the stack. */
function standardBase64(text: string): Uint8Array | null {
	const bytes = Buffer.from(text, 'base64');
	return bytes.toString('base64') === text ? new Uint8Array(bytes) : null;
}

function sentMessage(message: Message) {
	return {
		messageId: message.messageId,
		seq: message.seq,
		contentType: message.contentType,
		clientMessageId: message.encryption.clientMessageId,
		...(message.attachment ? { attachment: message.attachment } : {}),
		createdAt: isoSeconds(message.createdAtMs)
	};
}

const redeemInvite: ControlRoute['run'] = (ctx, { body }) => {
	const customer = redeem(ctx, body);
	return {
		status: 201,
		body: { ...customerView(ctx, customer), customerId: customer.customerId, conversationId: customer.conversationId }
	};
};

const getCustomer: ControlRoute['run'] = (ctx, { params }) => ({ status: 200, body: customerView(ctx, findCustomer(ctx, params.id)) });

const postMessage: ControlRoute['run'] = (ctx, { body, params }) => {
	const customer = findCustomer(ctx, params.id);
	if (typeof body.text !== 'string') throw new ContractError('INVALID_REQUEST', 'text must be a string');
	const contentType = optionalString(body, 'contentType') ?? 'text';
	return { status: 201, body: sentMessage(sendText(ctx, customer, body.text, contentType)) };
};

const postAttachment: ControlRoute['run'] = (ctx, { body, params }) => {
	const customer = findCustomer(ctx, params.id);
	const dataBase64 = optionalString(body, 'dataBase64');
	const data = dataBase64 === undefined ? null : standardBase64(dataBase64);
	if (!data) throw new ContractError('INVALID_REQUEST', 'dataBase64 must be standard base64');
	const message = sendAttachment(ctx, customer, {
		name: requireField(body, 'name'),
		mime: requireField(body, 'mime'),
		data,
		caption: optionalString(body, 'caption')
	});
	return { status: 201, body: sentMessage(message) };
};

const getMessages: ControlRoute['run'] = (ctx, { params }) => ({ status: 200, body: listMessages(ctx, findCustomer(ctx, params.id)) });

/** The decrypted bytes, as a download (never rendered on the simulator's origin). */
const getAttachment: ControlRoute['run'] = (ctx, { params }) => {
	const { meta, bytes } = downloadAttachment(ctx, findCustomer(ctx, params.id), params.attachmentId);
	return {
		status: 200,
		bytes,
		headers: {
			'content-type': 'application/octet-stream',
			'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(meta.name)}`,
			'x-attachment-mime': meta.mime
		}
	};
};

const postChangeDevice: ControlRoute['run'] = (ctx, { body, params }) => ({
	status: 200,
	body: customerView(ctx, changeDevice(ctx, findCustomer(ctx, params.id), body))
});

const postDelete: ControlRoute['run'] = (ctx, { params }) => {
	const customer = findCustomer(ctx, params.id);
	deleteCustomer(ctx, customer);
	return { status: 200, body: customerView(ctx, customer) };
};

const postRead: ControlRoute['run'] = (ctx, { body, params }) => {
	const customer = findCustomer(ctx, params.id);
	return {
		status: 200,
		body: { conversationId: customer.conversationId, readUpToMessageId: markReadByCustomer(ctx, customer, body.upToMessageId) }
	};
};

export const customerRoutes: [string, string, ControlRoute][] = [
	['POST', '/_sim/customers/redeem', { run: redeemInvite }],
	['GET', '/_sim/customers/:id', { run: getCustomer }],
	['POST', '/_sim/customers/:id/messages', { run: postMessage }],
	['GET', '/_sim/customers/:id/messages', { run: getMessages }],
	['POST', '/_sim/customers/:id/attachments', { run: postAttachment, maxBodyBytes: ATTACHMENT_BODY_BYTES }],
	['GET', '/_sim/customers/:id/attachments/:attachmentId', { run: getAttachment }],
	['POST', '/_sim/customers/:id/change-device', { run: postChangeDevice }],
	['POST', '/_sim/customers/:id/delete', { run: postDelete }],
	['POST', '/_sim/customers/:id/read', { run: postRead }]
];
