import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import ts from 'typescript-eslint';
import svelteConfig from './svelte.config.js';

export default ts.config(
	{ ignores: ['build/', '.svelte-kit/', 'data/', 'test-results/', 'playwright-report/', '.stryker-tmp/'] },
	js.configs.recommended,
	...ts.configs.recommended,
	...svelte.configs.recommended,
	prettier,
	...svelte.configs.prettier,
	{
		languageOptions: { globals: { ...globals.browser, ...globals.node } },
		rules: {
			'no-undef': 'off',
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }]
		}
	},
	{
		// Product code never depends on test code: only specs may use the helpers of tests/support/ ($test-support).
		files: ['src/**/*.ts', 'src/**/*.js', 'src/**/*.svelte'],
		ignores: ['src/**/*.spec.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					patterns: [
						{
							regex: '^\\$test-support(/|$)|(^|/)tests/',
							message:
								'Only specs (*.spec.ts) may import test helpers; what product code shares with the tests lives under src/ (as src/cli/stack/ does).'
						}
					]
				}
			],
			'no-restricted-syntax': [
				'error',
				{
					selector: 'ImportExpression[source.value=/^\\$test-support(\\/|$)|(^|\\/)tests\\//]',
					message:
						'Only specs (*.spec.ts) may import test helpers; what product code shares with the tests lives under src/ (as src/cli/stack/ does).'
				}
			]
		}
	},
	{
		// A function a reader can hold in mind: product code keeps each one (closures and all) to 80 lines.
		files: ['src/**/*.ts', 'src/**/*.js', 'src/**/*.svelte'],
		ignores: ['src/**/*.spec.ts'],
		rules: { 'max-lines-per-function': ['error', { max: 80 }] }
	},
	{
		files: ['**/*.svelte', '**/*.svelte.ts', '**/*.svelte.js'],
		languageOptions: { parserOptions: { projectService: true, extraFileExtensions: ['.svelte'], parser: ts.parser, svelteConfig } }
	}
);
