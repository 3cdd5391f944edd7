"use strict";
// The operator token arrives once, in the URL metaforge serve printed at
// start (?token=...). It is kept in sessionStorage (this tab, this origin:
// never sent to another port of 127.0.0.1 the way a cookie would be, and
// never sent by a page elsewhere that posts here) and taken out of the
// address bar, its history entry and any Referer at once.
const tokenKey = "metaforge.operatorToken";
(function takeToken() {
  const url = new URL(location.href);
  const t = url.searchParams.get("token");
  if (t === null) return;
  if (t) sessionStorage.setItem(tokenKey, t);
  url.searchParams.delete("token");
  history.replaceState(null, "", url.pathname + url.search + url.hash);
})();
function operatorToken() { return sessionStorage.getItem(tokenKey) || ""; }
