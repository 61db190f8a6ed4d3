/**
 * A Stryker ignorer (docs/mutation-testing.md "What is not mutated"): a call to the server's logger
 * (`log.info/warn/error(…)`, also as `this.log`, `inbox.log` or `options.log`) is an operator's message,
 * not behaviour the tests pin down, so its text and fields are not mutated.
 */
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

const LEVELS = new Set(['info', 'warn', 'error']);

/** `log`, or a member named `log` (`this.log`, `inbox.log`, `this.options.log`). */
function isLogger(node) {
	if (node.type === 'Identifier') return node.name === 'log';
	return node.type === 'MemberExpression' && node.property.type === 'Identifier' && node.property.name === 'log';
}

export const strykerPlugins = [
	declareValuePlugin(PluginKind.Ignore, 'logging', {
		shouldIgnore(path) {
			if (!path.isExpressionStatement()) return undefined;
			const call = path.node.expression;
			if (call.type !== 'CallExpression' || call.callee.type !== 'MemberExpression') return undefined;
			const { object, property } = call.callee;
			if (property.type === 'Identifier' && LEVELS.has(property.name) && isLogger(object)) {
				return 'a log message is for the operator, not behaviour the tests pin down';
			}
			return undefined;
		}
	})
];
