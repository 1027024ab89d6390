// The language server: JSON-RPC messages in, replies and notifications out. Transport-free (the
// caller hands it message bodies and gives it a sink for outgoing messages), so the message loop in
// main.cpp stays a few lines. Every method's failure is a JSON-RPC error reply, never a crash.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "lsp/jsonrpc.h"
#include "lsp/workspace.h"

namespace gs::lsp {

class Server {
 public:
  explicit Server(std::function<void(const json&)> send) : send_(std::move(send)) {}

  // One message body as received (not yet parsed).
  void receive(const std::string& body);
  // Checks every model whose files changed since its last check and publishes what changed in its
  // diagnostics. The loop calls it once input pauses, so a burst of keystrokes costs one check.
  void check_stale();
  bool has_stale() const { return !workspace_.stale().empty(); }

  bool exited() const { return exited_; }
  // The process's exit status: 0 after shutdown then exit, 1 when the input ended or exit came first.
  int exit_status() const { return exited_ && shutdown_ ? 0 : 1; }

 private:
  json dispatch(const std::string& method, const json& params, bool request);
  json initialize(const json& params);
  void did_open(const json& params);
  void did_change(const json& params);
  json hover(const json& params);
  json definition(const json& params);
  json references(const json& params);
  json completion(const json& params);
  json formatting(const json& params);
  json document_symbols(const json& params);

  std::string path_of(const json& params) const;  // the local path of params.textDocument.uri
  std::string document_text(const std::string& path, const ModelCheck& model) const;
  // The model `path` belongs to, checked now if it is out of date (and its diagnostics published).
  std::shared_ptr<const ModelCheck> model(const std::string& path);
  void publish(const ModelCheck& model);
  // The declaration of the name under a request's cursor (none when there is no known name there).
  struct Lookup {
    std::shared_ptr<const ModelCheck> model;
    const Declaration* declaration = nullptr;
    json range;  // the name under the cursor
  };
  Lookup lookup(const json& params);

  std::function<void(const json&)> send_;
  Workspace workspace_;
  std::map<std::string, int> versions_;             // open documents' versions, by path
  std::map<std::string, json> published_;           // the diagnostics last sent, by path
  bool initialized_ = false, shutdown_ = false, exited_ = false;
};

}  // namespace gs::lsp
