// The play page's Python compiled ahead, for the docs build (docs/play_site.py runs it):
//
//   node docs/play_bytecode.mjs PYODIDE_FOLDER OUT_FOLDER WHEEL...
//
// Starts the Pyodide in PYODIDE_FOLDER (node_modules/pyodide: the one the page loads),
// unpacks the wheels, and runs docs/play_bytecode.py, which writes python_stdlib.zip,
// python_stdlib_rest.zip, bytecode.zip and summary.json; they are copied into OUT_FOLDER.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideFolder, outFolder, ...wheels] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(join(resolve(pyodideFolder), "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: `${resolve(pyodideFolder)}/` });
for (const wheel of wheels) py.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel");
const here = new URL(".", import.meta.url);
py.globals.set("FINDER_SOURCE", readFileSync(new URL("play_stdlib_rest.py", here), "utf8"));
py.globals.set("OUT", "/tmp/play_bytecode");
py.runPython(readFileSync(new URL("play_bytecode.py", here), "utf8"), { filename: "play_bytecode.py" });
for (const name of ["python_stdlib.zip", "python_stdlib_rest.zip", "bytecode.zip", "summary.json"]) {
  writeFileSync(join(outFolder, name), py.FS.readFile(`/tmp/play_bytecode/${name}`));
}
