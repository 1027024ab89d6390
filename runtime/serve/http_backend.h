// The boundary between `gpu-stack serve` (server.cpp: routes, checks, the API) and cpp-httplib, which
// lives in a separately loaded module (libgs_serve_http.so, built from http_httplib.cpp): linked into
// gpu-stack, cpp-httplib made every process load it and what it needs (libssl, zlib, brotli) at start-up,
// though only `serve` ever listens. server.cpp opens the module when a server starts.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace gs::serve {

struct HttpRequest {
  std::string method, path, body;
  std::string host, content_type;  // the Host and Content-Type headers ("" when absent)
};

struct HttpResponse {
  int status = 200;
  std::string body, content_type;                            // no body: an empty one, no Content-Type
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type and the defaults
};

struct HttpSettings {
  size_t threads = 8;          // requests handled at once
  size_t max_body = 65536;     // larger request bodies get 413
  int read_timeout_s = 5, write_timeout_s = 5, keep_alive_s = 2;
  std::vector<std::pair<std::string, std::string>> default_headers;  // on every response
};

// What the server does with a request. Each is called on the library's worker threads.
struct HttpRoutes {
  // Before routing; true when it answered (the request goes no further).
  std::function<bool(const HttpRequest&, HttpResponse&)> guard;
  std::function<void(const HttpRequest&, HttpResponse&)> get;   // GET (and HEAD) of any path
  std::function<void(const HttpRequest&, HttpResponse&)> post;  // POST to any path
  // A response the library made itself (an oversized body, a malformed request, another method), or one
  // a route left without a body: `status` is set, the body is for this to fill.
  std::function<void(HttpResponse&)> error;
};

struct HttpServer {
  virtual ~HttpServer() = default;
  // Binds `address`:`port` (0: any free port); the port bound, or -1 when it cannot.
  virtual int bind(const std::string& address, int port) = 0;
  // Serves the bound socket until stop(); returns then.
  virtual void listen() = 0;
  // Ends listen(); acts only once listen() runs, so a caller repeats it until listen() returned.
  virtual void stop() = 0;
};

}  // namespace gs::serve

// The module's one entry point, found with dlsym. `routes` must outlive the server.
extern "C" gs::serve::HttpServer* gs_serve_http_create(const gs::serve::HttpSettings* settings, const gs::serve::HttpRoutes* routes);
