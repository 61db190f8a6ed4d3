/**
 * The demo's "customer phone" at `/_sim/app` (and at each invitation link `/invite/{id}`): a page
 * where a person redeems an invitation, writes, sends files, reads what the business sent, changes
 * device and deletes the account by hand, all through the control API (contract 4, 6.3, 6.4).
 * Message text is only ever set as text, never parsed as HTML.
 */

const STYLE = `
body{font:15px/1.4 system-ui,sans-serif;margin:0;background:#eef1f5;color:#1b1f24}
main{max-width:560px;margin:0 auto;padding:16px}
h1{font-size:18px;margin:0 0 12px}
section{background:#fff;border-radius:10px;padding:12px;margin-bottom:12px;box-shadow:0 1px 2px #0002}
label{display:block;font-size:13px;color:#555;margin-bottom:4px}
input,textarea,button,select{font:inherit}
input[type=text],textarea{width:100%;box-sizing:border-box;padding:6px;border:1px solid #bbb;border-radius:6px}
button{padding:6px 12px;border-radius:6px;border:1px solid #2d5be3;background:#2d5be3;color:#fff;cursor:pointer;margin-top:6px}
button.secondary{background:#fff;color:#2d5be3}
button.danger{background:#fff;color:#b3261e;border-color:#b3261e}
#messages{display:flex;flex-direction:column;gap:6px;max-height:50vh;overflow:auto}
.bubble{max-width:80%;padding:6px 10px;border-radius:12px;white-space:pre-wrap;word-break:break-word}
.user{align-self:flex-end;background:#d7e3ff}
.company{align-self:flex-start;background:#f1f1f1}
.error{color:#b3261e}
.meta{font-size:12px;color:#666}
#status{font-size:13px;color:#555}
`;

const SCRIPT = `
const $ = (id) => document.getElementById(id);
const stored = () => JSON.parse(localStorage.getItem('sim-customers') || '[]');
let current = localStorage.getItem('sim-current') || '';

async function call(method, path, body) {
  const response = await fetch(path, { method, headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error((data.error && data.error.code ? data.error.code + ': ' + data.error.message : 'HTTP ' + response.status));
  return data;
}
function report(error) { $('problem').textContent = error ? String(error.message || error) : ''; }
function remember(customerId) {
  const list = stored().filter((id) => id !== customerId); list.unshift(customerId);
  localStorage.setItem('sim-customers', JSON.stringify(list.slice(0, 20)));
  current = customerId; localStorage.setItem('sim-current', customerId); renderCustomers();
}
function renderCustomers() {
  const select = $('customer'); select.replaceChildren();
  for (const id of stored()) { const option = document.createElement('option'); option.value = id; option.textContent = id; option.selected = id === current; select.append(option); }
  $('conversation').hidden = !current;
}
function redeemBody(value) { value = value.trim(); return value.includes('#') ? { link: value } : { shortCode: value }; }

async function redeem() {
  try { report(); const result = await call('POST', '/_sim/customers/redeem', redeemBody($('link').value)); remember(result.customerId); $('link').value = ''; await refresh(); }
  catch (error) { report(error); }
}
async function refresh() {
  if (!current) return;
  try {
    const [view, messages] = await Promise.all([call('GET', '/_sim/customers/' + current), call('GET', '/_sim/customers/' + current + '/messages').catch((error) => ({ error }))]);
    $('status').textContent = 'Conversation ' + view.conversationId + ' · ' + view.status + (view.userDeleted ? ' · account deleted' : '') + (view.companyTyping ? ' · the business is typing…' : '');
    const list = $('messages'); list.replaceChildren();
    if (messages.error) { const p = document.createElement('p'); p.className = 'error'; p.textContent = messages.error.message; list.append(p); return; }
    for (const message of messages) {
      const bubble = document.createElement('div'); bubble.className = 'bubble ' + message.senderType;
      if (message.error) { bubble.classList.add('error'); bubble.textContent = 'cannot read: ' + message.error; }
      else if (message.meta) {
        const link = document.createElement('a'); link.href = '/_sim/customers/' + current + '/attachments/' + message.meta.attachmentId;
        link.textContent = '📎 ' + message.meta.name + ' (' + message.meta.size + ' bytes)'; bubble.append(link);
        if (message.meta.caption) { const caption = document.createElement('div'); caption.textContent = message.meta.caption; bubble.append(caption); }
      } else bubble.textContent = message.text;
      const meta = document.createElement('div'); meta.className = 'meta';
      meta.textContent = message.createdAt + (message.readByCompany ? ' · read' : ''); bubble.append(meta);
      list.append(bubble);
    }
  } catch (error) { report(error); }
}
async function send() {
  try { report(); await call('POST', '/_sim/customers/' + current + '/messages', { text: $('text').value }); $('text').value = ''; await refresh(); }
  catch (error) { report(error); }
}
async function sendFile() {
  const file = $('file').files[0]; if (!file) return;
  try {
    report();
    const bytes = new Uint8Array(await file.arrayBuffer()); let binary = '';
    for (let i = 0; i < bytes.length; i += 32768) binary += String.fromCharCode(...bytes.subarray(i, i + 32768));
    await call('POST', '/_sim/customers/' + current + '/attachments', { name: file.name, mime: (file.type || 'application/octet-stream').toLowerCase(), dataBase64: btoa(binary), caption: $('caption').value || undefined });
    $('file').value = ''; $('caption').value = ''; await refresh();
  } catch (error) { report(error); }
}
async function act(path, body) {
  try { report(); await call('POST', '/_sim/customers/' + current + path, body || {}); await refresh(); } catch (error) { report(error); }
}

$('redeem').onclick = redeem;
$('send').onclick = send;
$('sendFile').onclick = sendFile;
$('read').onclick = () => act('/read');
$('changeDevice').onclick = () => act('/change-device', redeemBody($('reinvite').value)).then(() => { $('reinvite').value = ''; });
$('delete').onclick = () => { if (confirm('Delete this account? The business can no longer write to it.')) act('/delete'); };
$('customer').onchange = (event) => { current = event.target.value; localStorage.setItem('sim-current', current); refresh(); };
if (location.pathname.startsWith('/invite/')) $('link').value = location.href;
renderCustomers(); refresh(); setInterval(refresh, 1500);
`;

const BODY = `
<main>
<h1>Customer phone (simulated app)</h1>
<section>
<label for="link">Invitation link or short code</label>
<input id="link" type="text" placeholder="http://…/invite/inv_…#s=…&amp;fp=… or ABCD-EFGH" autocomplete="off">
<button id="redeem">Redeem</button>
<p id="problem" class="error" role="alert"></p>
<label for="customer">Conversation on this phone</label>
<select id="customer"></select>
</section>
<section id="conversation" hidden>
<div id="status"></div>
<div id="messages" aria-live="polite"></div>
<label for="text">Message</label>
<textarea id="text" rows="2"></textarea>
<button id="send">Send</button>
<button id="read" class="secondary">Mark read</button>
<label for="file">File</label>
<input id="file" type="file"> <input id="caption" type="text" placeholder="caption (optional)">
<button id="sendFile" class="secondary">Send file</button>
<label for="reinvite">Change device: re-invitation link or code</label>
<input id="reinvite" type="text" autocomplete="off">
<button id="changeDevice" class="secondary">Change device</button>
<button id="delete" class="danger">Delete account</button>
</section>
</main>`;

export function appPage(): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Customer phone · Service simulator</title><style>${STYLE}</style></head>
<body>${BODY}<script type="module">${SCRIPT}</script></body></html>`;
}
