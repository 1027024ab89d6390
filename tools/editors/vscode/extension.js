// The VS Code side of gstack: starts gstack-lsp (the language server built with gpu_stack) for .gstack
// files. Highlighting comes from syntaxes/gstack.tmLanguage.json and needs no server.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

async function activate(context) {
  const command = vscode.workspace.getConfiguration("gstack").get("server.path", "gstack-lsp");
  const serverOptions = { command, transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "gstack" }],
    // The server checks a file's whole directory, so changes to files that are not open matter too.
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.gstack") },
  };
  client = new LanguageClient("gstack", "gstack language server", serverOptions, clientOptions);
  try {
    await client.start();
  } catch (err) {
    vscode.window.showErrorMessage(
      `gstack: could not start '${command}' (${err.message}). Build gpu_stack and set gstack.server.path ` +
        "to build/bin/gstack-lsp, or put gstack-lsp on PATH.");
  }
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
