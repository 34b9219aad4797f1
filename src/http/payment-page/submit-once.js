/* global document, HTMLFormElement, setTimeout */
// The payment page's only script (docs/payment-page.md lists it with its hash): once Pay or Decline is pressed, every
// button of the page is disabled, so a double click cannot post the payment (or a decline after it) twice.
'use strict';
document.addEventListener('submit', (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement)) return;
  if (document.body.dataset.submitted === 'true') {
    event.preventDefault();
    return;
  }
  document.body.dataset.submitted = 'true';
  // After this task: a button disabled before the submission starts would be left out of the form's data.
  setTimeout(() => {
    for (const button of document.querySelectorAll('button')) button.disabled = true;
  }, 0);
});
