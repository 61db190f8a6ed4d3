/**
 * The delivery log of `/v1` and the retry operation (contract 6; docs/contract-gaps.md §9):
 * newest first with `status`, `limit` and `cursor`; `POST /v1/deliveries/{id}/retry` → `202`.
 */
import { ContractError } from '../../lib/crypto/index';
import { deliveryRecord } from '../records';
import type { DeliveryStatus } from '../state';
import { newestFirstPage } from './paging';
import { parseLimit } from './query';
import { ok, type V1Handler } from './request';

const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

export const listDeliveries: V1Handler = (ctx, request) => {
	const query = request.query;
	const status = query.get('status');
	if (status !== undefined && !DELIVERY_STATUSES.includes(status as DeliveryStatus)) {
		throw new ContractError('INVALID_REQUEST', `status must be one of ${DELIVERY_STATUSES.join(', ')}`);
	}
	const deliveries = ctx.store.deliveriesOf(request.company.companyId).filter((item) => status === undefined || item.status === status);
	const page = newestFirstPage(
		deliveries,
		(item) => [item.createdAtMs, item.deliveryId],
		parseLimit(query.get('limit')),
		query.get('cursor')
	);
	return ok({ data: page.data.map(deliveryRecord), nextCursor: page.nextCursor });
};

export const retryDelivery: V1Handler = (ctx, request, params) => {
	const delivery = ctx.store.deliveries.get(params.id);
	if (!delivery || delivery.companyId !== request.company.companyId) throw new ContractError('NOT_FOUND', `no delivery ${params.id}`);
	ctx.webhooks.retryNow(delivery);
	return ok(deliveryRecord(delivery), 202);
};
