// Prints the web page's cooperation line (asks.js bestText) for a cooperation read from
// argv[2] (JSON), in French then in English, one per line — no browser: the page's
// modules need only these few globals at import. Used by tests/test_oweens_cooperation_texts.py.
globalThis.location = { search: "", hash: "", href: "http://localhost/", pathname: "/" };
globalThis.localStorage = { getItem: () => null, setItem() {}, removeItem() {} };
globalThis.navigator = { language: "fr" };
const inert = { get: (_, key) => (key === Symbol.toPrimitive ? () => "" : new Proxy(function () {}, inert)),
                apply: () => new Proxy(function () {}, inert) };
globalThis.document = new Proxy(function () {}, inert);
globalThis.window = globalThis;
const { bestText } = await import("../../sidecar/server/web/static/asks.js");
const { state } = await import("../../sidecar/server/web/static/page.js");
const cooperation = JSON.parse(process.argv[2]);
for (const lang of ["fr", "en"]) {
  state.lang = lang;
  console.log(bestText(cooperation));
}
