// The refund claim page's script, on the same public calls a merchant's own page would make:
//   POST /refund_claims/{token}              the form: sends the chosen method and address, shows the
//                                            answer's field errors beside their fields; on success the
//                                            page is loaded again and shows the payout the server fixed
//   GET  /refund_claims/{token}/state        polled while the refund may still move (as the checkout
//                                            page polls a payment): the progress is updated in place
//   POST /refund_claims/{token}/test_payout  test mode only: the "Simulate payout" buttons
const main = document.getElementById('claim');
const form = document.getElementById('claim-form');
const strings = JSON.parse(document.getElementById('claim-strings').textContent);
const STEPS = ['AWAITING_PAYOUT', 'SENT', 'COMPLETED'];
const MOVING = ['AWAITING_DESTINATION', 'AWAITING_PAYOUT', 'SENT'];
const claimPath = main ? `${main.dataset.base}/refund_claims/${encodeURIComponent(main.dataset.token)}` : '';

function show(id, text) {
  const el = document.getElementById(id);
  if (!el) return;
  el.textContent = text || '';
  el.hidden = !text;
}

/** Shows a new status: in place while the payout's progress is on the page, else by loading the page again. */
function showStatus(status) {
  if (!main || status === main.dataset.status) return;
  const progress = document.getElementById('claim-progress');
  if (!progress || !STEPS.includes(status)) {
    window.location.reload();
    return;
  }
  main.dataset.status = status;
  const at = STEPS.indexOf(status);
  for (const li of progress.querySelectorAll('li[data-step]')) {
    const i = STEPS.indexOf(li.dataset.step);
    const state = i < at || status === 'COMPLETED' ? 'done' : i === at ? 'current' : 'todo';
    li.className = `step-${state}`;
    if (state === 'current') li.setAttribute('aria-current', 'step');
    else li.removeAttribute('aria-current');
  }
  const line = document.getElementById('claim-status');
  if (line) {
    line.dataset.status = status;
    line.textContent = strings[`status_${status}`] || status;
  }
  if (status === 'COMPLETED') {
    const controls = document.getElementById('test-controls');
    if (controls) controls.hidden = true;
  }
}

if (form && main) {
  const button = document.getElementById('claim-submit');
  const address = document.getElementById('address');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    show('address-error', '');
    show('provider-error', '');
    show('form-error', '');
    address.removeAttribute('aria-invalid');
    const chosen = form.querySelector('input[name="provider_id"]:checked');
    button.disabled = true;
    button.textContent = strings.sending;
    try {
      const res = await fetch(claimPath, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ provider_id: chosen ? chosen.value : '', address: address.value.trim() }),
      });
      const body = await res.json().catch(() => null);
      if (res.ok) {
        window.location.reload();
        return;
      }
      const fields = (body && body.validator) || {};
      if (fields.address) {
        show('address-error', fields.address);
        address.setAttribute('aria-invalid', 'true');
        address.focus();
      }
      if (fields.provider_id) show('provider-error', fields.provider_id);
      if (!fields.address && !fields.provider_id) show('form-error', (body && body.error) || strings.error_generic);
    } catch {
      show('form-error', strings.error_network);
    } finally {
      button.disabled = false;
      button.textContent = strings.submit;
    }
  });
}

// The refund's state, asked every poll_ms while it may still move; a failed ask is tried again next time.
if (main && MOVING.includes(main.dataset.status)) {
  const every = Number(main.dataset.pollMs) || 4000;
  const poll = async () => {
    try {
      const res = await fetch(`${claimPath}/state`, { headers: { Accept: 'application/json' }, cache: 'no-store' });
      if (res.ok) {
        const body = await res.json();
        if (body && body.data) showStatus(body.data.status);
      }
    } catch {
      // Offline for a moment: the next poll tries again.
    }
    if (MOVING.includes(main.dataset.status)) setTimeout(poll, every);
  };
  setTimeout(poll, every);
}

// Test mode: simulate the payout the merchant would send (the refund's network may have no test chain).
for (const button of document.querySelectorAll('#test-controls button[data-result]')) {
  button.addEventListener('click', async () => {
    const buttons = document.querySelectorAll('#test-controls button');
    show('test-error', '');
    show('test-result', '');
    buttons.forEach((b) => (b.disabled = true));
    try {
      const res = await fetch(`${claimPath}/test_payout`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify({ result: button.dataset.result }),
      });
      const body = await res.json().catch(() => null);
      if (!res.ok) {
        show('test-error', (body && body.error) || strings.error_generic);
        return;
      }
      if (button.dataset.result === 'short') show('test-result', strings.test_payout_short_done);
      showStatus(body.data.status);
    } catch {
      show('test-error', strings.error_network);
    } finally {
      buttons.forEach((b) => (b.disabled = false));
    }
  });
}
