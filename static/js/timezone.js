// Sign-up: choose the browser's own time zone in the form's time zone list, for the person to
// confirm (a zone the list does not offer leaves UTC).
const select = document.querySelector('select[name="time_zone"]');
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
if (select && !select.dataset.touched && zone && [...select.options].some((o) => o.value === zone)) {
  select.value = zone;
}
