// Activates extension.js against stand-ins for the `vscode` and `vscode-languageclient` modules (which
// exist only inside VS Code and after npm install) and checks what it asks of them: gstack-lsp started
// over stdio with the configured path, for gstack files, watching *.gstack files, and a clear message
// when the server cannot start. Needs only Node.js.
"use strict";
if (Number(process.versions.node.split(".")[0]) < 18) {
  console.log("skipped: node:test needs Node.js 18 or later");
  process.exit(77);
}
const Module = require("module");
const path = require("path");
const test = require("node:test");
const assert = require("node:assert");

function withStubs(config, startFails) {
  const seen = { clients: [], errors: [], watchers: [] };
  const vscode = {
    workspace: {
      getConfiguration: (section) => ({ get: (key, dflt) => (section === "gstack" && key in config ? config[key] : dflt) }),
      createFileSystemWatcher: (glob) => (seen.watchers.push(glob), { glob }),
    },
    window: { showErrorMessage: (msg) => seen.errors.push(msg) },
  };
  class LanguageClient {
    constructor(id, name, serverOptions, clientOptions) {
      Object.assign(this, { id, name, serverOptions, clientOptions, stopped: false });
      seen.clients.push(this);
    }
    async start() {
      if (startFails) throw new Error("spawn gstack-lsp ENOENT");
    }
    stop() {
      this.stopped = true;
      return Promise.resolve();
    }
  }
  const stubs = { vscode, "vscode-languageclient/node": { LanguageClient, TransportKind: { stdio: 0 } } };
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    return request in stubs ? stubs[request] : load.call(this, request, parent, isMain);
  };
  const file = path.join(__dirname, "..", "extension.js");
  delete require.cache[require.resolve(file)];
  try {
    return { ext: require(file), seen };
  } finally {
    Module._load = load;
  }
}

test("activate starts gstack-lsp for gstack files", async () => {
  const { ext, seen } = withStubs({ "server.path": "/opt/gpu_stack/bin/gstack-lsp" }, false);
  const context = { subscriptions: [] };
  await ext.activate(context);
  assert.strictEqual(seen.clients.length, 1);
  const c = seen.clients[0];
  assert.deepStrictEqual(c.serverOptions, { command: "/opt/gpu_stack/bin/gstack-lsp", transport: 0 });
  assert.deepStrictEqual(c.clientOptions.documentSelector, [{ scheme: "file", language: "gstack" }]);
  assert.deepStrictEqual(seen.watchers, ["**/*.gstack"]);
  assert.deepStrictEqual(seen.errors, []);
  assert.strictEqual(context.subscriptions.length, 1);
  await ext.deactivate();
  assert.ok(c.stopped, "deactivate stops the client");
});

test("the default server is gstack-lsp on PATH, and a failed start says how to fix it", async () => {
  const { ext, seen } = withStubs({}, true);
  await ext.activate({ subscriptions: [] });
  assert.strictEqual(seen.clients[0].serverOptions.command, "gstack-lsp");
  assert.strictEqual(seen.errors.length, 1);
  assert.match(seen.errors[0], /could not start 'gstack-lsp'.*gstack\.server\.path/);
});
