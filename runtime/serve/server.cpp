#include "runtime/serve/server.h"

#include <httplib.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "runtime/serve/static_files.h"
#include "runtime/site/site.h"

namespace gs::serve {

namespace {

namespace fs = std::filesystem;

constexpr const char* kJson = "application/json";

void send(httplib::Response& res, const Reply& r) {
  res.status = r.status;
  res.set_content(r.body, kJson);
  res.set_header("Cache-Control", "no-store");
}

// A temporary folder that is removed with everything in it when the server ends.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "gpu-stack-serve-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary folder under " + fs::temp_directory_path().string());
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

bool loopback(const std::string& bind) { return bind == "127.0.0.1" || bind == "localhost" || bind == "::1"; }

// On a loopback server the Host header must name the loopback address: a page on another site that
// resolves its own name to 127.0.0.1 (DNS rebinding) is refused.
bool host_allowed(const std::string& host, const std::string& bind, int port) {
  if (!loopback(bind)) return true;
  const std::string p = ":" + std::to_string(port);
  return host == "127.0.0.1" + p || host == "localhost" + p || host == "[::1]" + p;
}

const char* reason_of(int status) {
  switch (status) {
    case 400: return "bad request";
    case 403: return "forbidden";
    case 404: return "not found";
    case 405: return "method not allowed";
    case 413: return "the request is larger than --max-body";
    case 414: return "the request line is too long";
    case 415: return "unsupported media type";
    case 503: return "busy";
    default: return "error";
  }
}

}  // namespace

int serve(const Registry& reg, const ServeOptions& o, std::ostream& out, std::ostream& err) {
  if (o.port < 0 || o.port > 65535) throw std::runtime_error("--port must be between 0 and 65535");
  if (o.max_jobs < 1) throw std::runtime_error("--max-jobs must be at least 1");
  // SIGINT and SIGTERM wait for a thread of their own (below); every thread the server starts inherits
  // this mask, so no handler runs inside the HTTP library.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  std::optional<TempDir> temp;
  fs::path site = o.site_dir;
  if (site.empty()) {
    temp.emplace();
    site::SiteOptions so;
    so.out_dir = (temp->path / "site").string();
    so.image_path = o.workspace.image;
    so.presets_dir = o.workspace.presets_dir;
    so.default_runs_csv = o.workspace.runs_csv;
    so.data_dir = o.workspace.data_dir;
    so.experiments_dir = o.workspace.experiments_dir;
    so.assets_dir = o.workspace.site_assets_dir;
    so.chartjs_path = o.workspace.chartjs_path;
    err << "exporting the observatory for the default preset into " << so.out_dir << " ...\n";
    site::export_site(reg, so);
    site = so.out_dir;
  }
  std::error_code ec;
  const fs::path root = fs::canonical(site, ec);
  if (ec || !fs::is_regular_file(root / "index.html", ec))
    throw std::runtime_error("--site '" + site.string() + "' is not a folder with an index.html (gpu-stack export site --out DIR writes one)");

  Api api(reg, o.workspace, o.limits);
  httplib::Server svr;
  // One thread per core for the work (resolve's fast path runs in parallel; --max-jobs still caps the
  // requests in flight), plus a few for keep-alive connections that are idle between requests.
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t pool = std::max<size_t>(cores, o.max_jobs) + 4;
  svr.new_task_queue = [pool] { return new httplib::ThreadPool(pool); };
  svr.set_payload_max_length(o.max_body);
  svr.set_read_timeout(5, 0);
  svr.set_write_timeout(5, 0);
  svr.set_keep_alive_timeout(2);
  svr.set_tcp_nodelay(true);  // a reply goes out in two writes (headers, body): without this, delayed ACKs add 40 ms
  svr.set_default_headers({{"X-Content-Type-Options", "nosniff"}, {"Referrer-Policy", "no-referrer"}});

  int port = o.port;
  std::atomic<int> in_flight{0};
  svr.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
    if (host_allowed(req.get_header_value("Host"), o.bind, port)) return httplib::Server::HandlerResponse::Unhandled;
    send(res, error_reply(403, "this server answers only requests addressed to its loopback address", "open http://127.0.0.1:" + std::to_string(port) + "/"));
    return httplib::Server::HandlerResponse::Handled;
  });
  svr.Get("/api/health", [&](const httplib::Request&, httplib::Response& res) { send(res, api.health()); });
  svr.Get(R"(/api/.*)", [&](const httplib::Request& req, httplib::Response& res) {
    send(res, error_reply(405, "'" + req.path + "' takes POST with a JSON object body", "GET /api/health lists the endpoints and their fields"));
  });
  svr.Post(R"(/api/([A-Za-z0-9_-]{1,64}))", [&](const httplib::Request& req, httplib::Response& res) {
    // Refusing other types keeps a page on another site from posting here without a CORS preflight.
    if (req.get_header_value("Content-Type").rfind(kJson, 0) != 0)
      return send(res, error_reply(415, "send the request as Content-Type: application/json", "GET /api/health lists the endpoints and their fields"));
    if (in_flight.fetch_add(1) >= int(o.max_jobs)) {
      in_flight.fetch_sub(1);
      return send(res, error_reply(503, "busy: " + std::to_string(o.max_jobs) + " requests are running or waiting (--max-jobs)", "retry shortly"));
    }
    Reply r;
    try {
      r = api.post(req.matches[1], req.body);
    } catch (const std::exception& e) {
      r = error_reply(500, e.what(), "this is a bug in gpu-stack; please report the request");
    }
    in_flight.fetch_sub(1);
    send(res, r);
  });
  svr.Get(R"(/.*)", [&](const httplib::Request& req, httplib::Response& res) {
    const auto file = site_file(root, req.path);
    std::ifstream in;
    if (file) in.open(file->path, std::ios::binary);
    // Browsers ask for an icon the site does not have; "no content" keeps their consoles quiet.
    if (!file && req.path == "/favicon.ico") return void(res.status = 204);
    if (!file || !in.is_open()) return send(res, error_reply(404, "no such file in the site: '" + req.path + "'", "the observatory starts at /"));
    std::ostringstream bytes;
    bytes << in.rdbuf();
    res.set_content(bytes.str(), file->content_type);
  });
  svr.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) send(res, error_reply(res.status, reason_of(res.status), "GET /api/health lists the endpoints and their fields"));
  });

  if (port == 0) port = svr.bind_to_any_port(o.bind);
  else if (!svr.bind_to_port(o.bind, port)) port = -1;
  if (port <= 0)
    throw std::runtime_error("cannot listen on " + o.bind + ":" + std::to_string(o.port) + " (in use, or not an address of this machine); "
                             "--port 0 picks a free port");
  const std::string host = o.bind.find(':') != std::string::npos ? "[" + o.bind + "]" : o.bind;
  out << "serving the observatory at http://" << host << ":" << port << "/  (JSON API under /api/, GET /api/health lists it; "
      << "Ctrl-C stops)" << std::endl;
  if (!loopback(o.bind)) err << "warning: --bind " << o.bind << " lets other machines reach this server; it has no authentication\n";

  std::atomic<bool> done{false}, signalled{false};
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    signalled = true;
    if (done) return;
    // stop() acts only once the server runs; repeat it until listen returns.
    while (!done) {
      svr.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  svr.listen_after_bind();
  done = true;
  if (!signalled) pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter when the server ended for another reason
  waiter.join();
  err << "stopped\n";
  return 0;
}

}  // namespace gs::serve
