// The HTTP side of `gpu-stack serve` (http_backend.h) on cpp-httplib: the one translation unit that
// includes it, built as the module libgs_serve_http.so and opened by server.cpp when a server starts.
#include <httplib.h>

#include "runtime/serve/http_backend.h"

namespace gs::serve {
namespace {

HttpRequest request_of(const httplib::Request& req) {
  return {req.method, req.path, req.body, req.get_header_value("Host"), req.get_header_value("Content-Type")};
}

void write(const HttpResponse& from, httplib::Response& to) {
  to.status = from.status;
  if (!from.content_type.empty()) to.set_content(from.body, from.content_type);
  for (const auto& [name, value] : from.headers) to.set_header(name, value);
}

class HttplibServer final : public HttpServer {
 public:
  HttplibServer(const HttpSettings& s, const HttpRoutes& routes) {
    const size_t threads = s.threads;
    svr_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    svr_.set_payload_max_length(s.max_body);
    svr_.set_read_timeout(s.read_timeout_s, 0);
    svr_.set_write_timeout(s.write_timeout_s, 0);
    svr_.set_keep_alive_timeout(s.keep_alive_s);
    svr_.set_tcp_nodelay(true);  // a reply goes out in two writes (headers, body): without this, delayed ACKs add 40 ms
    svr_.set_default_headers(httplib::Headers(s.default_headers.begin(), s.default_headers.end()));
    const HttpRoutes* r = &routes;
    svr_.set_pre_routing_handler([r](const httplib::Request& req, httplib::Response& res) {
      HttpResponse out;
      if (!r->guard(request_of(req), out)) return httplib::Server::HandlerResponse::Unhandled;
      write(out, res);
      return httplib::Server::HandlerResponse::Handled;
    });
    auto route = [](const std::function<void(const HttpRequest&, HttpResponse&)>& handler) {
      return [&handler](const httplib::Request& req, httplib::Response& res) {
        HttpResponse out;
        handler(request_of(req), out);
        write(out, res);
      };
    };
    svr_.Get(R"(/.*)", route(r->get));
    svr_.Post(R"(/.*)", route(r->post));
    svr_.set_error_handler([r](const httplib::Request&, httplib::Response& res) {
      if (!res.body.empty()) return;
      HttpResponse out;
      out.status = res.status;
      r->error(out);
      write(out, res);
    });
  }

  int bind(const std::string& address, int port) override {
    if (port == 0) return svr_.bind_to_any_port(address);
    return svr_.bind_to_port(address, port) ? port : -1;
  }
  void listen() override { svr_.listen_after_bind(); }
  void stop() override { svr_.stop(); }

 private:
  httplib::Server svr_;
};

}  // namespace
}  // namespace gs::serve

extern "C" gs::serve::HttpServer* gs_serve_http_create(const gs::serve::HttpSettings* settings, const gs::serve::HttpRoutes* routes) {
  return new gs::serve::HttplibServer(*settings, *routes);
}
