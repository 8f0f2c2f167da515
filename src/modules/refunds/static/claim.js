// The refund claim page's script: sends the form to POST /refund_claims/{token} (the same call a
// merchant's own page would make) and shows the answer's field errors beside their fields. On
// success the page is loaded again and shows the payout the server fixed.
const main = document.getElementById('claim');
const form = document.getElementById('claim-form');
const strings = JSON.parse(document.getElementById('claim-strings').textContent);

function show(id, text) {
  const el = document.getElementById(id);
  if (!el) return;
  el.textContent = text || '';
  el.hidden = !text;
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
      const res = await fetch(`${main.dataset.base}/refund_claims/${encodeURIComponent(main.dataset.token)}`, {
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
