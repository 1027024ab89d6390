#include "runtime/serve/server.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "runtime/serve/http_backend.h"
#include "runtime/serve/static_files.h"
#include "runtime/site/site.h"

namespace gs::serve {

namespace {

namespace fs = std::filesystem;

constexpr const char* kJson = "application/json";

void send(HttpResponse& res, const Reply& r) {
  res.status = r.status;
  res.body = r.body, res.content_type = kJson;
  res.headers = {{"Cache-Control", "no-store"}};
}

// The cpp-httplib module (http_backend.h), opened once per process on first use: `module`
// (Workspace::serve_http_module), else the one this build made.
std::unique_ptr<HttpServer> make_http_server(const std::string& module, const HttpSettings& settings, const HttpRoutes& routes) {
  using CreateFn = HttpServer* (*)(const HttpSettings*, const HttpRoutes*);
  static CreateFn create = [&module] {
    const std::string path = module.empty() ? std::string(GSTACK_SERVE_HTTP_MODULE) : module;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) throw std::runtime_error("serve: cannot load the HTTP module '" + path + "': " + dlerror());
    auto fn = reinterpret_cast<CreateFn>(dlsym(handle, "gs_serve_http_create"));
    if (!fn) throw std::runtime_error("serve: '" + path + "' has no gs_serve_http_create");
    return fn;
  }();
  return std::unique_ptr<HttpServer>(create(&settings, &routes));
}

// An API endpoint's name from a POST path, /api/NAME with NAME of 1-64 letters, digits, '_' or '-'.
std::optional<std::string> endpoint_of(const std::string& path) {
  const std::string prefix = "/api/";
  if (path.rfind(prefix, 0) != 0) return std::nullopt;
  const std::string name = path.substr(prefix.size());
  if (name.empty() || name.size() > 64) return std::nullopt;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return std::nullopt;
  return name;
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

std::string to_string(ServeStage s) {
  switch (s) {
    case ServeStage::exporting: return "exporting";
    case ServeStage::listening: return "listening";
    case ServeStage::exposed: return "exposed";
    case ServeStage::stopped: return "stopped";
  }
  return "listening";
}

void to_json(nlohmann::ordered_json& j, const ServeEvent& e) {
  j = {{"stage", to_string(e.stage)}};
  if (!e.site_dir.empty()) j["site_dir"] = e.site_dir;
  if (!e.url.empty()) j["url"] = e.url;
  if (!e.bind.empty()) j["bind"] = e.bind;
}

void serve(const Registry& reg, const ServeOptions& o, const std::function<void(const ServeEvent&)>& report) {
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
    report({ServeStage::exporting, so.out_dir, "", ""});
    site::export_site(reg, so);
    site = so.out_dir;
  }
  std::error_code ec;
  const fs::path root = fs::canonical(site, ec);
  if (ec || !fs::is_regular_file(root / "index.html", ec))
    throw std::runtime_error("--site '" + site.string() + "' is not a folder with an index.html (gpu-stack export site --out DIR writes one)");

  Api api(reg, o.workspace, o.limits);
  HttpSettings settings;
  // One thread per core for the work (resolve's fast path runs in parallel; --max-jobs still caps the
  // requests in flight), plus a few for keep-alive connections that are idle between requests.
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  settings.threads = std::max<size_t>(cores, o.max_jobs) + 4;
  settings.max_body = o.max_body;
  settings.default_headers = {{"X-Content-Type-Options", "nosniff"}, {"Referrer-Policy", "no-referrer"}};

  int port = o.port;
  std::atomic<int> in_flight{0};
  HttpRoutes routes;
  routes.guard = [&](const HttpRequest& req, HttpResponse& res) {
    if (host_allowed(req.host, o.bind, port)) return false;
    send(res, error_reply(403, "this server answers only requests addressed to its loopback address", "open http://127.0.0.1:" + std::to_string(port) + "/"));
    return true;
  };
  routes.get = [&](const HttpRequest& req, HttpResponse& res) {
    if (req.path == "/api/health") return send(res, api.health());
    if (req.path.rfind("/api/", 0) == 0)
      return send(res, error_reply(405, "'" + req.path + "' takes POST with a JSON object body", "GET /api/health lists the endpoints and their fields"));
    if (req.path.empty() || req.path[0] != '/') return void(res.status = 404);
    const auto file = site_file(root, req.path);
    std::ifstream in;
    if (file) in.open(file->path, std::ios::binary);
    // Browsers ask for an icon the site does not have; "no content" keeps their consoles quiet.
    if (!file && req.path == "/favicon.ico") return void(res.status = 204);
    if (!file || !in.is_open()) return send(res, error_reply(404, "no such file in the site: '" + req.path + "'", "the observatory starts at /"));
    std::ostringstream bytes;
    bytes << in.rdbuf();
    res.body = bytes.str(), res.content_type = file->content_type;
  };
  routes.post = [&](const HttpRequest& req, HttpResponse& res) {
    const auto endpoint = endpoint_of(req.path);
    if (!endpoint) return void(res.status = 404);
    // Refusing other types keeps a page on another site from posting here without a CORS preflight.
    if (req.content_type.rfind(kJson, 0) != 0)
      return send(res, error_reply(415, "send the request as Content-Type: application/json", "GET /api/health lists the endpoints and their fields"));
    if (in_flight.fetch_add(1) >= int(o.max_jobs)) {
      in_flight.fetch_sub(1);
      return send(res, error_reply(503, "busy: " + std::to_string(o.max_jobs) + " requests are running or waiting (--max-jobs)", "retry shortly"));
    }
    Reply r;
    try {
      r = api.post(*endpoint, req.body);
    } catch (const std::exception& e) {
      r = error_reply(500, e.what(), "this is a bug in gpu-stack; please report the request");
    }
    in_flight.fetch_sub(1);
    send(res, r);
  };
  routes.error = [](HttpResponse& res) { send(res, error_reply(res.status, reason_of(res.status), "GET /api/health lists the endpoints and their fields")); };

  const std::unique_ptr<HttpServer> svr = make_http_server(o.workspace.serve_http_module, settings, routes);
  port = svr->bind(o.bind, port);
  if (port <= 0)
    throw std::runtime_error("cannot listen on " + o.bind + ":" + std::to_string(o.port) + " (in use, or not an address of this machine); "
                             "--port 0 picks a free port");
  const std::string host = o.bind.find(':') != std::string::npos ? "[" + o.bind + "]" : o.bind;
  report({ServeStage::listening, "", "http://" + host + ":" + std::to_string(port) + "/", o.bind});
  if (!loopback(o.bind)) report({ServeStage::exposed, "", "", o.bind});

  std::atomic<bool> done{false}, signalled{false};
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    signalled = true;
    if (done) return;
    // stop() acts only once the server runs; repeat it until listen returns.
    while (!done) {
      svr->stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  svr->listen();
  done = true;
  if (!signalled) pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter when the server ended for another reason
  waiter.join();
  report({ServeStage::stopped, "", "", ""});
}

}  // namespace gs::serve
