#include "lsp/server.h"

#include <iostream>

#include "compiler/fmt.h"
#include "lsp/text.h"

#ifndef GSTACK_VERSION
#define GSTACK_VERSION "dev"
#endif

namespace gs::lsp {

namespace {

// A failed request, answered as a JSON-RPC error.
struct RpcError : std::runtime_error {
  int code;
  RpcError(int c, const std::string& message) : std::runtime_error(message), code(c) {}
};

// Protocol enumerations used here.
constexpr int kSeverityError = 1, kSeverityWarning = 2;
constexpr int kCompletionVariable = 6, kCompletionConstant = 21;
constexpr int kSymbolFunction = 12, kSymbolVariable = 13, kSymbolConstant = 14, kSymbolString = 15,
              kSymbolTypeParameter = 26;
constexpr int kTextSyncFull = 1;
// More completion items than this are cut (and the list marked incomplete, so typing asks again).
constexpr size_t kMaxCompletionItems = 2000;

json position(unsigned line, unsigned character) { return {{"line", line}, {"character", character}}; }
json range(unsigned line, unsigned begin, unsigned end) {
  return {{"start", position(line, begin)}, {"end", position(line, end)}};
}

std::string slice(const std::string& s, Span span) { return s.substr(span.begin, span.end - span.begin); }

// The lines of documents, split once per request.
class Lines {
 public:
  explicit Lines(std::function<std::string(const std::string&)> text) : text_(std::move(text)) {}
  const std::string& line(const std::string& path, unsigned index) {
    auto it = cache_.find(path);
    if (it == cache_.end()) it = cache_.emplace(path, split_lines(text_(path))).first;
    static const std::string none;
    return index < it->second.size() ? it->second[index] : none;
  }

 private:
  std::function<std::string(const std::string&)> text_;
  std::map<std::string, std::vector<std::string>> cache_;
};

// The diagnostic's range: from its column to the end of the name there, or one character.
json diagnostic_json(const compiler::Diagnostic& d) {
  unsigned line = 0, begin = 0, end = 0;
  if (d.line) {
    line = d.line - 1;
    const std::string& text = d.source_line;
    const size_t at = byte_of_column(text, d.column);
    const Span name = name_at(text, at);
    begin = utf16_of_column(text, d.column);
    if (!name.empty() && name.begin <= at && at < name.end) end = utf16_length(text.substr(0, name.end));
    else end = at < text.size() ? begin + 1 : begin;
  }
  std::string message = d.message;
  if (!d.hint.empty()) message += "\nhint: " + d.hint;
  return {{"range", range(line, begin, end)},
          {"severity", d.severity == compiler::Severity::Error ? kSeverityError : kSeverityWarning},
          {"code", d.code},
          {"source", "gstackc"},
          {"message", message}};
}

}  // namespace

void Server::receive(const std::string& body) {
  const json msg = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (msg.is_discarded()) {
    send_(error_response(nullptr, rpc_error::kParseError, "the message is not valid JSON"));
    return;
  }
  if (!msg.is_object()) {
    send_(error_response(nullptr, rpc_error::kInvalidRequest, "a message must be a JSON object (batches are not used by the protocol)"));
    return;
  }
  const bool request = msg.contains("id");
  const json id = request ? msg["id"] : json();
  if (request && !(id.is_string() || id.is_number_integer())) {
    send_(error_response(nullptr, rpc_error::kInvalidRequest, "the id must be an integer or a string"));
    return;
  }
  if (!msg.contains("method")) {
    // A response to a request of ours: the server sends none, so there is nothing to match it with.
    if (!(request && (msg.contains("result") || msg.contains("error"))))
      send_(error_response(id, rpc_error::kInvalidRequest, "the message has no method"));
    return;
  }
  if (!msg["method"].is_string()) {
    if (request) send_(error_response(id, rpc_error::kInvalidRequest, "the method must be a string"));
    return;
  }
  const std::string method = msg["method"];
  json params = msg.value("params", json::object());
  if (params.is_null()) params = json::object();
  try {
    if (!params.is_object() && !params.is_array()) throw RpcError(rpc_error::kInvalidParams, "params must be an object");
    json result = dispatch(method, params, request);
    if (request) send_(response(id, std::move(result)));
  } catch (const RpcError& e) {
    if (request) send_(error_response(id, e.code, e.what()));
    else std::cerr << "gstack-lsp: " << method << ": " << e.what() << "\n";
  } catch (const json::exception& e) {
    if (request) send_(error_response(id, rpc_error::kInvalidParams, std::string("invalid params: ") + e.what()));
    else std::cerr << "gstack-lsp: " << method << ": invalid params: " << e.what() << "\n";
  } catch (const std::exception& e) {
    if (request) send_(error_response(id, rpc_error::kInternalError, e.what()));
    else std::cerr << "gstack-lsp: " << method << ": " << e.what() << "\n";
  }
}

json Server::dispatch(const std::string& method, const json& params, bool request) {
  if (method == "exit") {
    exited_ = true;
    return nullptr;
  }
  if (!initialized_ && method != "initialize") {
    if (request) throw RpcError(rpc_error::kServerNotInitialized, "the server has not been initialized");
    return nullptr;  // notifications before initialize are dropped
  }
  if (shutdown_ && request) throw RpcError(rpc_error::kInvalidRequest, "the server is shutting down");
  if (method == "initialize") {
    if (initialized_) throw RpcError(rpc_error::kInvalidRequest, "initialize was already called");
    return initialize(params);
  }
  if (method == "shutdown") {
    shutdown_ = true;
    return nullptr;
  }
  if (method == "textDocument/didOpen") did_open(params);
  else if (method == "textDocument/didChange") did_change(params);
  else if (method == "textDocument/didClose") {
    const std::string path = path_of(params);
    versions_.erase(path);
    workspace_.close(path);
  } else if (method == "textDocument/didSave") workspace_.touched(path_of(params));
  else if (method == "workspace/didChangeWatchedFiles") {
    for (const auto& change : params.at("changes"))
      if (auto path = path_from_uri(change.at("uri").get<std::string>())) workspace_.touched(*path);
  } else if (method == "textDocument/hover") return hover(params);
  else if (method == "textDocument/definition") return definition(params);
  else if (method == "textDocument/references") return references(params);
  else if (method == "textDocument/completion") return completion(params);
  else if (method == "textDocument/formatting") return formatting(params);
  else if (method == "textDocument/documentSymbol") return document_symbols(params);
  else if (request) throw RpcError(rpc_error::kMethodNotFound, "unknown method '" + method + "'");
  // Unknown notifications (initialized, $/cancelRequest, $/setTrace, ...) need no action.
  return nullptr;
}

json Server::initialize(const json&) {
  initialized_ = true;
  return {{"capabilities",
           {{"positionEncoding", "utf-16"},
            {"textDocumentSync", {{"openClose", true}, {"change", kTextSyncFull}, {"save", {{"includeText", false}}}}},
            {"hoverProvider", true},
            {"definitionProvider", true},
            {"referencesProvider", true},
            {"completionProvider", {{"triggerCharacters", {"."}}}},
            {"documentFormattingProvider", true},
            {"documentSymbolProvider", true}}},
          {"serverInfo", {{"name", "gstack-lsp"}, {"version", GSTACK_VERSION}}}};
}

std::string Server::path_of(const json& params) const {
  const std::string uri = params.at("textDocument").at("uri").get<std::string>();
  auto path = path_from_uri(uri);
  if (!path) throw RpcError(rpc_error::kInvalidParams, "only file:// URIs name .gstack files: '" + uri + "'");
  return *path;
}

void Server::did_open(const json& params) {
  const json& doc = params.at("textDocument");
  const std::string path = path_of(params);
  versions_[path] = doc.value("version", 0);
  workspace_.open(path, doc.at("text").get<std::string>());
}

void Server::did_change(const json& params) {
  const std::string path = path_of(params);
  const std::string* current = workspace_.text(path);
  if (!current) throw RpcError(rpc_error::kInvalidParams, "didChange for a document that is not open: " + path);
  std::string text = *current;
  // Full sync is what the server asks for; a change with a range is applied all the same.
  for (const auto& change : params.at("contentChanges")) {
    std::string replacement = change.at("text").get<std::string>();
    if (!change.contains("range")) {
      text = std::move(replacement);
      continue;
    }
    const json& r = change.at("range");
    const size_t a = byte_of_position(text, r.at("start").at("line").get<unsigned>(), r.at("start").at("character").get<unsigned>());
    const size_t b = byte_of_position(text, r.at("end").at("line").get<unsigned>(), r.at("end").at("character").get<unsigned>());
    text.replace(a, b >= a ? b - a : 0, replacement);
  }
  versions_[path] = params.at("textDocument").value("version", versions_[path]);
  workspace_.change(path, std::move(text));
}

std::shared_ptr<const ModelCheck> Server::model(const std::string& path) {
  const bool stale = workspace_.stale().count(Workspace::model_dir(path)) > 0;
  auto m = workspace_.model_of(path);
  if (stale) publish(*m);
  return m;
}

void Server::check_stale() {
  const std::set<std::string> dirs = workspace_.stale();
  for (const auto& dir : dirs) {
    try {
      publish(*workspace_.check(dir));
    } catch (const std::exception& e) {  // outside any request: logged, and the loop goes on
      std::cerr << "gstack-lsp: checking " << dir << ": " << e.what() << "\n";
    }
  }
}

void Server::publish(const ModelCheck& model) {
  std::map<std::string, json> now;
  for (const auto& [path, diags] : model.diagnostics) {
    json& arr = now[path.empty() && !model.files.empty() ? model.files.front()->source.path : path];
    if (arr.is_null()) arr = json::array();
    for (const auto& d : diags) arr.push_back(diagnostic_json(d));
  }
  // Files of this model that had diagnostics before but are gone now get an empty list.
  for (const auto& [path, old] : published_)
    if (Workspace::model_dir(path) == model.dir && !now.count(path)) now[path] = json::array();
  for (auto& [path, diags] : now) {
    if (path.empty()) continue;
    // Only changes are sent: a file that stays clean is never mentioned.
    auto it = published_.find(path);
    if (it == published_.end() ? diags.empty() : it->second == diags) continue;
    json params = {{"uri", uri_from_path(path)}, {"diagnostics", diags}};
    if (auto v = versions_.find(path); v != versions_.end()) params["version"] = v->second;
    send_(notification("textDocument/publishDiagnostics", params));
    if (diags.empty()) published_.erase(path);
    else published_[path] = diags;
  }
}

std::string Server::document_text(const std::string& path, const ModelCheck& model) const {
  if (const std::string* open = workspace_.text(path)) return *open;
  if (const ParsedFile* f = model.file(path)) return f->source.text;
  return "";
}

namespace {

// Where a request's cursor is: its line's text and the byte under the cursor.
struct Cursor {
  unsigned line = 0;
  std::string text;
  size_t byte = 0;
};

Cursor cursor(const json& params, const std::string& document) {
  Cursor c;
  c.line = params.at("position").at("line").get<unsigned>();
  const unsigned character = params.at("position").at("character").get<unsigned>();
  const auto lines = split_lines(document);
  if (c.line < lines.size()) c.text = lines[c.line];
  c.byte = byte_of_utf16(c.text, character);
  return c;
}

// The protocol range of a name that starts at a 1-based line and code-point column (names are ASCII).
json name_range(Lines& lines, const std::string& path, unsigned line, unsigned column, size_t length) {
  const unsigned index = line ? line - 1 : 0;
  const unsigned begin = utf16_of_column(lines.line(path, index), column);
  return range(index, begin, begin + unsigned(length));
}

}  // namespace

Server::Lookup Server::lookup(const json& params) {
  Lookup l;
  const std::string path = path_of(params);
  l.model = model(path);
  const Cursor c = cursor(params, document_text(path, *l.model));
  const Span span = name_at(c.text, c.byte);
  if (span.empty()) return l;
  l.declaration = l.model->index->find(slice(c.text, span));
  l.range = range(c.line, utf16_length(c.text.substr(0, span.begin)), utf16_length(c.text.substr(0, span.end)));
  return l;
}

json Server::hover(const json& params) {
  const Lookup l = lookup(params);
  if (!l.declaration) return nullptr;
  return {{"contents", {{"kind", "markdown"}, {"value", hover_markdown(*l.model->index, *l.declaration)}}}, {"range", l.range}};
}

json Server::definition(const json& params) {
  const Lookup l = lookup(params);
  if (!l.declaration) return nullptr;
  const Declaration& d = *l.declaration;
  Lines lines([&](const std::string& p) { return document_text(p, *l.model); });
  return {{"uri", uri_from_path(d.path)}, {"range", name_range(lines, d.path, d.line, d.column, d.name.size())}};
}

json Server::references(const json& params) {
  const Lookup l = lookup(params);
  json out = json::array();
  if (!l.declaration) return out;
  const Declaration& d = *l.declaration;
  const bool with_declaration = params.value("context", json::object()).value("includeDeclaration", true);
  Lines lines([&](const std::string& p) { return document_text(p, *l.model); });
  for (const auto& o : l.model->index->occurrences()) {
    if (o.kind != d.kind || o.name != d.name || (o.declaration && !with_declaration)) continue;
    out.push_back({{"uri", uri_from_path(o.path)}, {"range", name_range(lines, o.path, o.line, o.column, o.name.size())}});
  }
  return out;
}

json Server::completion(const json& params) {
  const std::string path = path_of(params);
  auto m = model(path);
  const Cursor c = cursor(params, document_text(path, *m));
  const Span typed = name_before(c.text, c.byte);
  const std::string prefix = slice(c.text, typed);
  const json replace = range(c.line, utf16_length(c.text.substr(0, typed.begin)), utf16_length(c.text.substr(0, c.byte)));
  json items = json::array();
  bool complete = true;
  for (const Declaration* d : m->index->variables()) {
    if (d->name.compare(0, prefix.size(), prefix) != 0) continue;
    if (items.size() == kMaxCompletionItems) {
      complete = false;
      break;
    }
    const compiler::ADecl& decl = *d->decl;
    items.push_back({{"label", d->name},
                     {"kind", decl.k == compiler::ADecl::K::Const ? kCompletionConstant : kCompletionVariable},
                     {"detail", decl.unit ? decl.unit->text : ""},
                     {"documentation", decl.description},
                     {"textEdit", {{"range", replace}, {"newText", d->name}}}});
  }
  return {{"isIncomplete", !complete}, {"items", items}};
}

json Server::formatting(const json& params) {
  const std::string path = path_of(params);
  auto m = model(path);
  const std::string text = document_text(path, *m);
  compiler::Diagnostics diags;
  const auto formatted = compiler::format_source(compiler::SourceFile::from_text(path, text), diags);
  if (!formatted) {
    std::string why = "the file does not parse, so it cannot be formatted";
    if (!diags.all().empty()) {
      const auto& d = diags.all().front();
      why += ": " + std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message;
    }
    throw RpcError(rpc_error::kRequestFailed, why);
  }
  json edits = json::array();
  if (auto e = line_edit(text, *formatted))
    edits.push_back({{"range", {{"start", position(e->first, 0)}, {"end", position(e->end_line, e->end_character)}}},
                     {"newText", e->text}});
  return edits;
}

json Server::document_symbols(const json& params) {
  const std::string path = path_of(params);
  auto m = model(path);
  json out = json::array();
  const ParsedFile* file = nullptr;
  for (const auto& f : m->indexed)
    if (f->source.path == path) file = f.get();
  if (!file) return out;
  Lines lines([&](const std::string& p) { return document_text(p, *m); });
  for (const auto& d : file->ast->decls) {
    using K = compiler::ADecl::K;
    const int kind = d.k == K::Relation ? kSymbolFunction : d.k == K::Var ? kSymbolVariable : d.k == K::Const ? kSymbolConstant
                   : d.k == K::Ref ? kSymbolString : kSymbolTypeParameter;
    std::string detail = d.unit && d.k != K::Unit ? d.unit->text : d.description;
    const json r = name_range(lines, path, d.at.line, d.at.column, d.name.size());
    out.push_back({{"name", d.name}, {"kind", kind}, {"detail", detail}, {"range", r}, {"selectionRange", r}});
  }
  return out;
}

}  // namespace gs::lsp
