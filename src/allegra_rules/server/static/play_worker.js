// The docs' play page's engine: Pyodide and allegra_rules.browser_table in a Web Worker,
// so that the page never waits on Python (loading it takes seconds; a search bot's move
// may take a few hundred milliseconds). app.js ("the table in this page") starts it and
// talks to it by messages; the server's page never loads it.
//
// Messages from the page:
//   {kind: "load", base, wheels, weights}
//                                  load Pyodide from `base` (the "pyodide/" folder's
//                                  address), unpack the wheels and zip archives
//                                  (their addresses, in order) and fetch the policy's
//                                  weights files from `weights` (the "weights/"
//                                  folder's address) when a table first needs one;
//                                  answered {kind: "loaded", bots, offers, marks} or
//                                  {kind: "failed", message}.
//   {kind: "call", id, name, args} one call of the page's table (see GLUE); answered
//                                  {kind: "answer", id, ok} or {kind: "answer", id,
//                                  error, message} (a refusal: a server error code) or
//                                  {kind: "answer", id, failed} (anything else).
//   {kind: "python", id, code}     run Python and answer its value as text (for
//                                  benchmarks/play_page.py); answered like "call".
// Every message is handled in order: one table, one call at a time.

// The page's one table lives in Python; "create" makes a new one. Only what the table
// needs is imported: the bots' modules load when a table first asks for them.
const GLUE = `
import json
from allegra_rules.browser_table import BrowserTable, TableError, bot_choices, bot_offers
from allegra_rules.records import verify_record_text

table = None

def call(name, *args):
    global table
    try:
        if name == "verify":
            try:
                return json.dumps({"ok": verify_record_text(*args)})
            except ValueError as error:
                return json.dumps({"error": "not_verified", "message": str(error)})
        if name == "create":
            table = BrowserTable.create(*args)
            return json.dumps({"ok": None})
        return json.dumps({"ok": getattr(table, name)(*args)})
    except TableError as error:
        return json.dumps({"error": error.code, "message": str(error)})
`;

// When each step ended, in milliseconds since 1970 (the page turns them into its own
// performance marks: the worker's clock starts later than the page's).
const marks = {};
const mark = (name) => { marks[name] = performance.timeOrigin + performance.now(); };

let python = null;
let glue = null;

async function load(base, wheels, weights) {
  // The wheels download while Python starts.
  const downloads = Promise.all(wheels.map(async (url) => {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`${url}: ${response.status}`);
    return response.arrayBuffer();
  }));
  const { loadPyodide } = await import(`${base}pyodide.mjs`);
  mark("pyodide");
  const py = await loadPyodide({ indexURL: base });
  mark("python");
  // The page's standard library holds what the game imports, compiled; the first import
  // of any other module fetches the rest (docs/play_stdlib_rest.py).
  const rest = new URL("python_stdlib_rest.zip", new URL(base, self.location.href)).href;
  py.runPython(`import _allegra_stdlib_rest; _allegra_stdlib_rest.install(${JSON.stringify(rest)})`);
  (await downloads).forEach((data, k) => py.unpackArchive(data, wheels[k].endsWith(".whl") ? "wheel" : "zip"));
  mark("wheels");
  py.runPython(GLUE);
  py.runPython(`from allegra_rules.browser_table import fetch_weights_from; fetch_weights_from(${JSON.stringify(weights)})`);
  mark("ready");
  glue = py.globals.get("call");
  python = py;
  return JSON.parse(py.runPython('json.dumps({"bots": bot_choices(), "offers": bot_offers(bot_choices())})'));
}

function answer(message) {
  if (message.kind === "python") return String(python.runPython(message.code));
  return glue(message.name, ...message.args);
}

self.onmessage = async (event) => {
  const message = event.data;
  if (message.kind === "load") {
    try {
      const { bots, offers } = await load(message.base, message.wheels, message.weights);
      mark("bots");
      self.postMessage({ kind: "loaded", bots, offers, marks });
    } catch (error) {
      self.postMessage({ kind: "failed", message: String(error && error.message || error) });
    }
    return;
  }
  try {
    const text = answer(message);
    if (message.kind === "python") {
      self.postMessage({ kind: "answer", id: message.id, ok: text });
      return;
    }
    const data = JSON.parse(text);
    self.postMessage({ kind: "answer", id: message.id, ...data });
  } catch (error) {
    self.postMessage({ kind: "answer", id: message.id, failed: String(error && error.message || error) });
  }
};
