/**
 * The inbox's keyboard shortcuts (docs/inbox-api.md §11 "Keyboard"), listed once: the overlay `?` opens
 * shows this list, and each entry names where it works. None fires while the agent writes in a field,
 * except those of the composer and the search box.
 */
export interface Shortcut {
	keys: readonly string[];
	action: string;
}

export interface ShortcutGroup {
	where: string;
	shortcuts: readonly Shortcut[];
}

export const SHORTCUTS: readonly ShortcutGroup[] = [
	{
		where: 'Anywhere',
		shortcuts: [{ keys: ['?'], action: 'Show these shortcuts' }]
	},
	{
		where: 'Conversation list',
		shortcuts: [
			{ keys: ['j', '↓'], action: 'Next conversation' },
			{ keys: ['k', '↑'], action: 'Previous conversation' },
			{ keys: ['Enter'], action: 'Open the conversation under the cursor' },
			{ keys: ['/'], action: 'Search names and messages' }
		]
	},
	{
		where: 'Search box',
		shortcuts: [
			{ keys: ['Enter'], action: 'Open the best message found' },
			{ keys: ['↓'], action: 'Go to the messages found' },
			{ keys: ['Esc'], action: 'Clear the search' }
		]
	},
	{
		where: 'Conversation',
		shortcuts: [
			{ keys: ['a'], action: 'Assign it to me' },
			{ keys: ['Esc'], action: 'Close the details panel' }
		]
	},
	{
		where: 'Composer',
		shortcuts: [
			{ keys: ['Enter'], action: 'Send (on a touch screen: new line)' },
			{ keys: ['Shift', 'Enter'], action: 'New line' },
			{ keys: ['/'], action: 'Insert a canned reply (at the start of the box)' },
			{ keys: ['↑', '↓', 'Tab'], action: 'Choose among the canned replies offered' }
		]
	}
];
