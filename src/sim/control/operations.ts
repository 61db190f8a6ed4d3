/**
 * Control API for the service's machinery (docs/simulator.md; contract 5.1, 6, 8): the clock
 * (offset, scale, which time signatures use), webhook fault injection, and the delivery log with
 * every attempt.
 */
import { ContractError, isIntegerIn } from '../../lib/crypto/index';
import { MAX_SCALE, type ClockSettings } from '../clock';
import { isoSeconds } from '../../lib/crypto/index';
import { deliveryRecord } from '../records';
import type { AttemptRecord, Delivery } from '../state';
import type { FaultKind } from '../webhooks/faults';
import { findCompany } from './companies';
import type { ControlRoute } from './types';

function optionalNumber(body: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
	const value = body[field];
	if (value === undefined) return undefined;
	if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
		throw new ContractError('INVALID_REQUEST', `${field} must be a number from ${min} to ${max}`);
	}
	return value;
}

const TEN_YEARS_SECONDS = 10 * 365 * 86_400;

const setClock: ControlRoute['run'] = (ctx, { body }) => {
	const settings: ClockSettings = {
		offsetSeconds: optionalNumber(body, 'offsetSeconds', -TEN_YEARS_SECONDS, TEN_YEARS_SECONDS),
		advanceSeconds: optionalNumber(body, 'advanceSeconds', -TEN_YEARS_SECONDS, TEN_YEARS_SECONDS),
		scale: optionalNumber(body, 'scale', 0, MAX_SCALE)
	};
	if (body.signatureClock !== undefined) {
		if (body.signatureClock !== 'real' && body.signatureClock !== 'simulated') {
			throw new ContractError('INVALID_REQUEST', 'signatureClock must be real or simulated');
		}
		settings.signatureClock = body.signatureClock;
	}
	ctx.clock.set(settings);
	return { status: 200, body: ctx.clock.read() };
};

const getClock: ControlRoute['run'] = (ctx) => ({ status: 200, body: ctx.clock.read() });

const FAULT_KINDS = ['timeout', 'duplicate', 'reorder'] as const;

/** `POST /_sim/faults`: the next `failNext` attempts (or events, for `reorder`) of a company misbehave. */
const addFault: ControlRoute['run'] = (ctx, { body }) => {
	const company = findCompany(ctx, String(body.companyId ?? ''));
	if (!isIntegerIn(body.failNext, 1, 10_000)) throw new ContractError('INVALID_REQUEST', 'failNext must be an integer from 1 to 10000');
	const flags = FAULT_KINDS.filter((kind) => body[kind] !== undefined);
	for (const kind of flags) if (body[kind] !== true) throw new ContractError('INVALID_REQUEST', `${kind} must be true when given`);
	if (flags.length + (body.status !== undefined ? 1 : 0) > 1) {
		throw new ContractError('INVALID_REQUEST', 'give one of status, timeout, duplicate and reorder');
	}
	const kind = (flags[0] ?? 'status') as FaultKind;
	if (kind === 'status' && body.status !== undefined && !isIntegerIn(body.status, 400, 599)) {
		throw new ContractError('INVALID_REQUEST', 'status must be an integer from 400 to 599');
	}
	if (kind === 'reorder' && body.failNext === 1) throw new ContractError('INVALID_REQUEST', 'reorder needs failNext of at least 2');
	ctx.webhooks.faults.add(company.companyId, {
		kind,
		remaining: body.failNext as number,
		...(kind === 'status' ? { status: (body.status as number | undefined) ?? 503 } : {})
	});
	return { status: 201, body: { companyId: company.companyId, faults: ctx.webhooks.faults.list(company.companyId) } };
};

const listFaults: ControlRoute['run'] = (ctx, { query }) => {
	const company = findCompany(ctx, query.get('companyId') ?? '');
	return { status: 200, body: { companyId: company.companyId, faults: ctx.webhooks.faults.list(company.companyId) } };
};

/** Removes every fault of the company and sends the events a `reorder` still holds. */
const clearFaults: ControlRoute['run'] = (ctx, { query }) => {
	const company = findCompany(ctx, query.get('companyId') ?? '');
	ctx.webhooks.faults.clear(company.companyId);
	ctx.webhooks.releaseHeld(company.companyId);
	return { status: 200, body: { companyId: company.companyId, faults: [] } };
};

function attemptView(attempt: AttemptRecord) {
	const iso = (ms: number) => new Date(ms).toISOString();
	return {
		...attempt,
		scheduledAt: iso(attempt.scheduledAtMs),
		startedAt: iso(attempt.startedAtMs),
		finishedAt: iso(attempt.finishedAtMs)
	};
}

function deliveryLogEntry(delivery: Delivery) {
	return {
		...deliveryRecord(delivery),
		companyId: delivery.companyId,
		conversationId: delivery.conversationId,
		nextAttemptAtMs: delivery.nextAttemptAtMs,
		event: JSON.parse(delivery.body),
		body: delivery.body,
		attemptLog: delivery.attemptLog.map(attemptView)
	};
}

/** `GET /_sim/deliveries?companyId=…[&eventType=…][&conversationId=…][&status=…]`: oldest first, every attempt. */
const listDeliveryLog: ControlRoute['run'] = (ctx, { query }) => {
	const company = findCompany(ctx, query.get('companyId') ?? '');
	const matches = (delivery: Delivery) =>
		(!query.has('eventType') || delivery.eventType === query.get('eventType')) &&
		(!query.has('conversationId') || delivery.conversationId === query.get('conversationId')) &&
		(!query.has('status') || delivery.status === query.get('status'));
	const deliveries = ctx.store
		.deliveriesOf(company.companyId)
		.filter(matches)
		.sort((a, b) => a.createdAtMs - b.createdAtMs);
	return { status: 200, body: { data: deliveries.map(deliveryLogEntry), now: isoSeconds(ctx.clock.nowMs()) } };
};

export const operationRoutes: [string, string, ControlRoute][] = [
	['POST', '/_sim/clock', { run: setClock }],
	['GET', '/_sim/clock', { run: getClock }],
	['POST', '/_sim/faults', { run: addFault }],
	['GET', '/_sim/faults', { run: listFaults }],
	['DELETE', '/_sim/faults', { run: clearFaults }],
	['GET', '/_sim/deliveries', { run: listDeliveryLog }]
];
