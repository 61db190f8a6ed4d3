import { createRequire } from 'node:module';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

describe('the floor plan (docs/architecture.md; .dependency-cruiser.cjs)', () => {
	it('has no import that breaks a rule: no circles, a pure core, server code on the server, no tests or simulator in product code', async () => {
		const config = require('../.dependency-cruiser.cjs');
		const result = await cruise(['src', 'tests'], { ...config.options, ruleSet: { forbidden: config.forbidden }, validate: true });
		const { summary } = result.output as ICruiseResult;
		const violations = summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`);
		expect(summary.totalCruised).toBeGreaterThan(500);
		expect(violations).toEqual([]);
	}, 180_000);
});
