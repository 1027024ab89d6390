// The server without a transport: messages in, replies out. The scripted sessions of tests/lsp cover
// the protocol end to end; this covers incremental changes, which editors send only when asked for full
// sync and ignore it.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "lsp/server.h"
#include "lsp/text.h"

using namespace gs::lsp;

namespace {

struct Client {
  std::vector<json> out;
  Server server{[this](const json& m) { out.push_back(m); }};
  json request(const std::string& method, json params) {
    server.receive(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", std::move(params)}}.dump());
    return out.back();
  }
  void notify(const std::string& method, json params) {
    server.receive(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}.dump());
  }
};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a change with a range edits the open text at UTF-16 positions") {
  const std::string path = std::string(GSTACK_SOURCE_DIR) + "/tests/lsp/model/10_trip.gstack";
  const std::string uri = uri_from_path(path);
  Client c;
  c.request("initialize", json::object());
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"version", 1}, {"text", read(path)}}}});
  // Line 9 (index 8) is "var trip.speed : km/h ...": rename the variable (characters 4-14).
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", uri}, {"version", 2}}},
            {"contentChanges", {{{"range", {{"start", {{"line", 8}, {"character", 4}}}, {"end", {{"line", 8}, {"character", 14}}}}},
                                 {"text", "trip.velocity"}}}}});
  // Line 11 (index 10) has "𝜂" (two UTF-16 units) in its description; the 'ref' after it starts at 87.
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", uri}, {"version", 3}}},
            {"contentChanges", {{{"range", {{"start", {{"line", 10}, {"character", 87}}}, {"end", {{"line", 10}, {"character", 87}}}}},
                                 {"text", "  "}}}}});
  const json symbols = c.request("textDocument/documentSymbol", {{"textDocument", {{"uri", uri}}}});
  std::vector<std::string> names;
  for (const auto& s : symbols.at("result")) names.push_back(s.at("name"));
  CHECK(names == std::vector<std::string>{"handbook", "trip.distance", "trip.duration", "trip.velocity", "speed"});
  // The renamed variable leaves 'eq speed' reading an unknown name, at the place the edit did not touch.
  bool unknown = false;
  for (const auto& m : c.out)
    if (m.value("method", "") == "textDocument/publishDiagnostics")
      for (const auto& d : m["params"]["diagnostics"]) unknown = unknown || d["code"] == "E-UNKNOWN-NAME";
  CHECK(unknown);
  // The two spaces inserted before 'ref' are what formatting takes out again.
  const json edits = c.request("textDocument/formatting", {{"textDocument", {{"uri", uri}}}, {"options", json::object()}});
  REQUIRE(edits.at("result").size() == 1);
  CHECK(edits["result"][0]["range"]["start"]["line"] == 10);
  CHECK(edits["result"][0]["newText"].get<std::string>().find("time\" ref handbook") != std::string::npos);
}
