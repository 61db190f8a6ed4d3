/** What a promise was refused with, as `{ code, message }` (both undefined when it resolved), for specs of ContractErrors. */
export async function refusal(promise: Promise<unknown>): Promise<{ code?: string; message?: string }> {
	const error = (await promise.then(
		() => undefined,
		(caught: unknown) => caught
	)) as { code?: string; message?: string } | undefined;
	return { code: error?.code, message: error?.message };
}
