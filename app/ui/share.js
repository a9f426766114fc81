// "Copy a link to this state": copies the page's deep link, in every delivery.
//
// The engines keep the address's query string equal to the page's state (history.replaceState), so
// the link is the page's own address: the served app's (also inside an iframe on a course page, where
// the frame's address is the app's), or the offline file's file:// or https:// address.  The
// clipboard may be refused (a frame without allow="clipboard-write", an old browser): the link then
// shows in a selected text field to copy by hand.  The link is only ever inserted escaped.

const AttnShare = (function () {
  "use strict";

  function esc(s) {
    return String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[ch]));
  }

  function currentLink(loc) {
    return loc.href.split("#")[0];
  }

  // the rendered view of a model (Bokeh keeps root views in Bokeh.index, each with its child views)
  function findView(model) {
    const stack = Object.values((window.Bokeh && window.Bokeh.index) || {});
    while (stack.length) {
      const v = stack.pop();
      if (v.model === model) return v;
      for (const child of v.child_views || []) stack.push(child);
    }
    return null;
  }

  // select the fallback field once Bokeh has drawn the new text (a few frames at most)
  function selectField(status, tries) {
    const view = findView(status);
    const field = view && view.shadow_el && view.shadow_el.querySelector("input.share-link");
    if (field) {
      field.focus();
      field.select();
    } else if (tries > 0) {
      requestAnimationFrame(() => selectField(status, tries - 1));
    }
  }

  function show(a, html) {
    a.status.visible = true;
    a.status.text = html;
  }

  function handle(a) {
    const link = currentLink(window.location), t = a.texts;
    const copied = () => show(a,
      `<p class="share-done" role="status">${esc(t.copied)}</p><p class="share-shown">${esc(link)}</p>`);
    const fallback = () => {
      show(a, `<p class="share-by-hand" role="status">${esc(t.fallback)}</p>` +
        `<input class="share-link" type="text" readonly aria-label="${esc(t.field)}" value="${esc(link)}">`);
      selectField(a.status, 30);
    };
    let writing = null;
    try {
      // a frame whose host did not allow the clipboard (no allow="clipboard-write"): straight to the field,
      // rather than asking and logging a refusal
      const policy = document.permissionsPolicy || document.featurePolicy;
      const allowed = !policy || typeof policy.allowsFeature !== "function" || policy.allowsFeature("clipboard-write");
      if (allowed && navigator.clipboard && typeof navigator.clipboard.writeText === "function")
        writing = navigator.clipboard.writeText(link);
    } catch (e) {
      writing = null;
    }
    if (writing && typeof writing.then === "function") writing.then(copied, fallback);
    else fallback();
  }

  return { handle, esc, currentLink };
})();
