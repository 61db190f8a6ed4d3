/**
 * Preloaded into a test server (`node --import ./tests/support/fixed-clock.mjs build`): stops the
 * process's wall clock at TEST_CLOCK_FIXED_MS, so that fixed timestamps such as those of the public HMAC
 * vectors (valid at exactly 300 s, expired at 301 s) are judged at their own time. Timers keep running
 * (they use a monotonic clock). Only tests load it; the server has no clock setting of its own.
 */
const fixed = Number(process.env.TEST_CLOCK_FIXED_MS ?? 0);
if (fixed) {
	const RealDate = Date;
	class FixedDate extends RealDate {
		constructor(...args) {
			if (args.length === 0) super(fixed);
			else super(...args);
		}
		static now() {
			return fixed;
		}
	}
	globalThis.Date = FixedDate;
}
