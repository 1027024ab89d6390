#include "image/image.h"

#include "image/eval.h"

// SHA256_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP, whose first use costs a process
// start most of its hashing time; OpenSSL 3 still builds and exports them (see sha256 below).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <fcntl.h>
#include <openssl/sha.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <span>

#include "image/atomic_file.h"

namespace gs {

const char* role_name(Role r) {
  static const char* names[] = {"identity", "variant", "approximation", "constraint", "differential", "stochastic"};
  return names[static_cast<int>(r)];
}

const char* kind_name(Kind k) {
  static const char* names[] = {"algebraic", "piecewise", "iterative", "inequality", "differential", "stochastic"};
  return names[static_cast<int>(k)];
}

// OpenSSL's SHA-256 context functions rather than EVP_Digest: the first EVP call of a process initialises
// OpenSSL's providers and reads its configuration, about 3 ms of the 4 ms that hashing a 760 KB image
// took at start-up (docs/runtime.md, "Start-up"). The digest is the same.
std::array<uint8_t, 32> sha256(const void* data, size_t size) {
  std::array<uint8_t, 32> out{};
  SHA256_CTX ctx;
  if (!SHA256_Init(&ctx) || !SHA256_Update(&ctx, data, size) || !SHA256_Final(out.data(), &ctx))
    throw std::runtime_error("SHA-256 failed");
  return out;
}

std::string sha256_hex(const void* data, size_t size) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (uint8_t b : sha256(data, size)) s += hex[b >> 4], s += hex[b & 15];
  return s;
}

bool Image::operator==(const Image& o) const {
  return files == o.files && file_hashes == o.file_hashes && units.dimension_names == o.units.dimension_names &&
         systems == o.systems && refs == o.refs && vars == o.vars && relations == o.relations &&
         relation_deps == o.relation_deps && defined_by == o.defined_by && used_in == o.used_in && exports == o.exports &&
         units.units.size() == o.units.units.size() && units.prefixes.size() == o.units.prefixes.size();
}

void build_adjacency(Image& img) {
  const size_t nv = img.vars.size();
  std::vector<std::set<uint32_t>> defined(nv), used(nv);
  img.relation_deps = Csr{};
  for (uint32_t r = 0; r < img.relations.size(); ++r) {
    const Relation& rel = img.relations[r];
    std::set<uint32_t> deps;
    auto add = [&](const Expr& e) {
      for (uint32_t v : expr_variables(e)) deps.insert(v);
    };
    add(rel.rhs), add(rel.validity), add(rel.initial), add(rel.iterations);
    for (const auto& p : rel.parameters) add(p);
    if (rel.indep_var >= 0) deps.insert(uint32_t(rel.indep_var));
    if (rel.role == Role::Constraint) {
      // A constraint reads every variable on both sides and belongs to the ones on its left.
      for (uint32_t v : expr_variables(rel.lhs)) deps.insert(v), defined[v].insert(r);
    } else if (rel.lhs_var >= 0) {
      defined[uint32_t(rel.lhs_var)].insert(r);
      deps.erase(uint32_t(rel.lhs_var));
    }
    for (uint32_t v : deps) {
      img.relation_deps.items.push_back(v);
      if (!(rel.role == Role::Constraint && defined[v].count(r))) used[v].insert(r);
    }
    img.relation_deps.offsets.push_back(uint32_t(img.relation_deps.items.size()));
  }
  auto fill = [nv](Csr& csr, const std::vector<std::set<uint32_t>>& rows) {
    csr = Csr{};
    for (size_t v = 0; v < nv; ++v) {
      csr.items.insert(csr.items.end(), rows[v].begin(), rows[v].end());
      csr.offsets.push_back(uint32_t(csr.items.size()));
    }
  };
  fill(img.defined_by, defined);
  fill(img.used_in, used);
}

namespace {

constexpr char kMagic[8] = {'G', 'S', 'I', 'M', 'G', '\0', '\r', '\n'};
constexpr size_t kHeaderSize = 8 + 4 + 8 + 32;

class Writer {
 public:
  std::vector<uint8_t> out;
  void u8(uint8_t v) { out.push_back(v); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
  }
  void i32(int32_t v) { u32(static_cast<uint32_t>(v)); }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
  }
  void f64(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    u64(bits);
  }
  void str(const std::string& s) {
    u32(uint32_t(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  void u32s(const std::vector<uint32_t>& v) {
    u32(uint32_t(v.size()));
    for (uint32_t x : v) u32(x);
  }
  void dim(const Dim& d) {
    u32(uint32_t(d.exps.size()));
    for (auto e : d.exps) i32(e.num), i32(e.den);
  }
  void span(const Span& s) { u32(s.file), u32(s.line), u32(s.column); }
  void expr(const Expr& e) {
    u32(uint32_t(e.nodes.size()));
    for (const auto& n : e.nodes) {
      u8(uint8_t(n.op));
      if (n.op == Op::Num) f64(n.value);
      else if (n.op == Op::Var || n.op == Op::Local) u32(n.index);
      else if (n.op == Op::Call) u32(n.index), u32(n.count);
      else if (n.op == Op::Piecewise) u32(n.count);
    }
  }
  void csr(const Csr& c) { u32s(c.offsets), u32s(c.items); }
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  bool done() const { return pos_ == n_; }
  void need(size_t k) {
    if (n_ - pos_ < k) throw ImageError("registry image is truncated or corrupt (read past the end of the payload)");
  }
  uint8_t u8() { return need(1), p_[pos_++]; }
  uint32_t u32() {
    need(4);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t(p_[pos_++]) << (8 * i);
    return v;
  }
  int32_t i32() { return static_cast<int32_t>(u32()); }
  uint64_t u64() {
    need(8);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(p_[pos_++]) << (8 * i);
    return v;
  }
  double f64() {
    uint64_t bits = u64();
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  // count() without consuming it, to reserve a table before reading it.
  uint32_t peek_count(size_t min_bytes_each) {
    const size_t at = pos_;
    const uint32_t c = count(min_bytes_each);
    pos_ = at;
    return c;
  }
  uint32_t count(size_t min_bytes_each = 1) {
    uint32_t c = u32();
    if (min_bytes_each && c > (n_ - pos_) / min_bytes_each) throw ImageError("registry image is corrupt (impossible table size)");
    return c;
  }
  std::string str() {
    uint32_t len = count();
    std::string s(reinterpret_cast<const char*>(p_ + pos_), len);
    pos_ += len;
    return s;
  }
  std::vector<uint32_t> u32s() {
    std::vector<uint32_t> v(count(4));
    for (auto& x : v) x = u32();
    return v;
  }
  Dim dim() {
    Dim d;
    d.exps.resize(count(8));
    for (auto& e : d.exps) {
      e.num = i32();
      e.den = i32();
      if (e.den <= 0) throw ImageError("registry image is corrupt (bad dimension exponent)");
    }
    return d;
  }
  Span span() {
    Span s;
    s.file = u32(), s.line = u32(), s.column = u32();
    return s;
  }
  Expr expr() {
    Expr e;
    e.nodes.resize(count(1));
    for (auto& n : e.nodes) {
      uint8_t op = u8();
      if (op > uint8_t(Op::Piecewise)) throw ImageError("registry image is corrupt (unknown expression node)");
      n.op = Op(op);
      if (n.op == Op::Num) n.value = f64();
      else if (n.op == Op::Var || n.op == Op::Local) n.index = u32();
      else if (n.op == Op::Call) n.index = u32(), n.count = u32();
      else if (n.op == Op::Piecewise) n.count = u32();
    }
    return e;
  }
  Csr csr() {
    Csr c;
    c.offsets = u32s();
    c.items = u32s();
    return c;
  }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
};

void write_payload(Writer& w, const Image& img) {
  w.u32(uint32_t(img.files.size()));
  for (size_t i = 0; i < img.files.size(); ++i) w.str(img.files[i]), w.str(img.file_hashes.at(i));
  w.u32(uint32_t(img.units.dimension_names.size()));
  for (const auto& d : img.units.dimension_names) w.str(d);
  w.u32(uint32_t(img.units.units.size()));
  for (const auto& u : img.units.units) w.str(u.name), w.f64(u.scale), w.dim(u.dim), w.str(u.description);
  w.u32(uint32_t(img.units.prefixes.size()));
  for (const auto& p : img.units.prefixes) w.str(p.name), w.f64(p.factor);
  w.u32(uint32_t(img.systems.size()));
  for (const auto& s : img.systems) w.str(s.name), w.str(s.description), w.u32s(s.uses), w.u32(s.file);
  w.u32(uint32_t(img.refs.size()));
  for (const auto& r : img.refs) {
    w.str(r.name), w.str(r.citation), w.str(r.kind), w.str(r.url), w.str(r.locator);
    w.i32(r.year), w.span(r.span);
  }
  w.u32(uint32_t(img.vars.size()));
  for (const auto& v : img.vars) {
    w.str(v.name), w.str(v.symbol), w.str(v.description), w.str(v.doc), w.str(v.unit), w.f64(v.unit_scale), w.dim(v.dim);
    w.u32(v.system), w.u32s(v.refs);
    w.u8(uint8_t(v.assume.sign)), w.u8(v.assume.integer), w.u8(v.assume.binary), w.u8(v.assume.has_range);
    w.f64(v.assume.lo), w.f64(v.assume.hi);
    w.u8(v.is_constant), w.f64(v.value), w.span(v.span);
  }
  w.u32(uint32_t(img.relations.size()));
  for (const auto& r : img.relations) {
    w.str(r.name), w.str(r.description), w.u32(r.system), w.u8(uint8_t(r.role)), w.u8(uint8_t(r.kind));
    w.str(r.variant_key), w.i32(r.lhs_var), w.expr(r.lhs), w.expr(r.rhs), w.expr(r.validity), w.i32(r.fallback);
    w.u8(uint8_t(r.compare)), w.expr(r.initial), w.expr(r.iterations), w.str(r.distribution);
    w.u32(uint32_t(r.parameters.size()));
    for (const auto& p : r.parameters) w.expr(p);
    w.i32(r.indep_var), w.u32(r.order), w.u32s(r.refs), w.span(r.span);
  }
  w.csr(img.relation_deps), w.csr(img.defined_by), w.csr(img.used_in);
  w.u32(uint32_t(img.exports.size()));
  for (const auto& e : img.exports) w.str(e.role), w.str(e.label), w.str(e.description), w.u32(e.var), w.span(e.span);
}

void check_ids(const Image& img) {
  const size_t nv = img.vars.size(), nr = img.relations.size(), ns = img.systems.size();
  auto bad = [](const char* what) { throw ImageError(std::string("registry image is corrupt (") + what + ")"); };
  // The loader checks structure only (locals anywhere, any literal); `verify` applies the full rules.
  auto check_expr = [&](const Expr& e) {
    const char* what = "bad expression node";
    switch (check_postfix(e, {nv, true, false}).fault) {
      case PostfixFault::None: return;
      case PostfixFault::BadVariable: what = "variable id out of range"; break;
      case PostfixFault::Underflow: what = "expression stack underflow"; break;
      case PostfixFault::ExtraValues: what = "expression leaves extra values"; break;
      case PostfixFault::BadFunction: what = "bad function node"; break;
      case PostfixFault::BadPiecewise: what = "bad piecewise node"; break;
      default: break;
    }
    bad(what);
  };
  for (const auto& s : img.systems)
    for (uint32_t u : s.uses) if (u >= ns) bad("system id out of range");
  for (const auto& v : img.vars) {
    if (v.system >= ns) bad("system id out of range");
    for (uint32_t r : v.refs) if (r >= img.refs.size()) bad("reference id out of range");
  }
  for (const auto& r : img.relations) {
    if (r.system >= ns || r.lhs_var >= int32_t(nv) || r.indep_var >= int32_t(nv)) bad("id out of range");
    for (const Expr* e : {&r.lhs, &r.rhs, &r.validity, &r.initial, &r.iterations}) check_expr(*e);
    for (const auto& p : r.parameters) check_expr(p);
    for (uint32_t x : r.refs) if (x >= img.refs.size()) bad("reference id out of range");
    if (r.fallback < -1 || r.fallback >= int32_t(nr)) bad("fallback id out of range");
  }
  // Following fallbacks must end: a cycle would never. Each relation is walked once (0 new, 1 on the
  // current chain, 2 known to end).
  std::vector<uint8_t> state(nr, 0);
  for (size_t start = 0; start < nr; ++start) {
    std::vector<size_t> chain;
    int32_t at = int32_t(start);
    for (; at >= 0 && state[size_t(at)] == 0; at = img.relations[size_t(at)].fallback) state[size_t(at)] = 1, chain.push_back(size_t(at));
    if (at >= 0 && state[size_t(at)] == 1) bad("fallbacks form a cycle");
    for (size_t k : chain) state[k] = 2;
  }
  auto check_csr = [&](const Csr& c, size_t rows, size_t limit) {
    if (c.rows() != rows || c.offsets.front() != 0 || c.offsets.back() != c.items.size()) bad("adjacency table size");
    for (size_t i = 0; i < rows; ++i) if (c.offsets[i] > c.offsets[i + 1]) bad("adjacency offsets");
    for (uint32_t x : c.items) if (x >= limit) bad("adjacency id out of range");
  };
  check_csr(img.relation_deps, nr, nv);
  check_csr(img.defined_by, nv, nr);
  check_csr(img.used_in, nv, nr);
  for (const auto& e : img.exports) if (e.var >= nv) bad("exported variable id out of range");
}

Image read_payload(Reader& r) {
  Image img;
  for (uint32_t i = 0, n = r.count(8); i < n; ++i) img.files.push_back(r.str()), img.file_hashes.push_back(r.str());
  for (uint32_t i = 0, n = r.count(4); i < n; ++i) img.units.dimension_names.push_back(r.str());
  for (uint32_t i = 0, n = r.count(8); i < n; ++i) {
    UnitDef u;
    u.name = r.str(), u.scale = r.f64(), u.dim = r.dim(), u.description = r.str();
    img.units.units.push_back(std::move(u));
  }
  for (uint32_t i = 0, n = r.count(8); i < n; ++i) {
    PrefixDef p;
    p.name = r.str(), p.factor = r.f64();
    img.units.prefixes.push_back(std::move(p));
  }
  img.units.index();
  for (uint32_t i = 0, n = r.count(8); i < n; ++i) {
    System s;
    s.name = r.str(), s.description = r.str(), s.uses = r.u32s(), s.file = r.u32();
    img.systems.push_back(std::move(s));
  }
  for (uint32_t i = 0, n = r.count(8); i < n; ++i) {
    Reference x;
    x.name = r.str(), x.citation = r.str(), x.kind = r.str(), x.url = r.str(), x.locator = r.str();
    x.year = r.i32(), x.span = r.span();
    img.refs.push_back(std::move(x));
  }
  // Each table's size is checked against the bytes left before it is reserved; without the reserve, the
  // growing vectors moved every variable and relation about twice (6% of a `resolve`).
  img.vars.reserve(r.peek_count(8));
  for (uint32_t i = 0, n = r.count(8); i < n; ++i) {
    Variable v;
    v.name = r.str(), v.symbol = r.str(), v.description = r.str(), v.doc = r.str(), v.unit = r.str(), v.unit_scale = r.f64();
    v.dim = r.dim(), v.system = r.u32(), v.refs = r.u32s();
    uint8_t sign = r.u8();
    if (sign > uint8_t(Sign::Nonpositive)) throw ImageError("registry image is corrupt (bad sign assumption)");
    v.assume.sign = Sign(sign), v.assume.integer = r.u8(), v.assume.binary = r.u8(), v.assume.has_range = r.u8();
    v.assume.lo = r.f64(), v.assume.hi = r.f64();
    v.is_constant = r.u8(), v.value = r.f64(), v.span = r.span();
    img.vars.push_back(std::move(v));
  }
  img.relations.reserve(r.peek_count(8));
  for (uint32_t i = 0, n = r.count(8); i < n; ++i) {
    Relation x;
    x.name = r.str(), x.description = r.str(), x.system = r.u32();
    uint8_t role = r.u8(), kind = r.u8();
    if (role > uint8_t(Role::Stochastic) || kind > uint8_t(Kind::Stochastic)) throw ImageError("registry image is corrupt (bad relation role)");
    x.role = Role(role), x.kind = Kind(kind);
    x.variant_key = r.str(), x.lhs_var = r.i32(), x.lhs = r.expr(), x.rhs = r.expr(), x.validity = r.expr(), x.fallback = r.i32();
    x.compare = Op(r.u8()), x.initial = r.expr(), x.iterations = r.expr(), x.distribution = r.str();
    for (uint32_t k = 0, m = r.count(4); k < m; ++k) x.parameters.push_back(r.expr());
    x.indep_var = r.i32(), x.order = r.u32(), x.refs = r.u32s(), x.span = r.span();
    img.relations.push_back(std::move(x));
  }
  img.relation_deps = r.csr(), img.defined_by = r.csr(), img.used_in = r.csr();
  for (uint32_t i = 0, n = r.count(8); i < n; ++i) {
    Export e;
    e.role = r.str(), e.label = r.str(), e.description = r.str(), e.var = r.u32(), e.span = r.span();
    img.exports.push_back(std::move(e));
  }
  if (!r.done()) throw ImageError("registry image is corrupt (trailing bytes after the last table)");
  check_ids(img);
  return img;
}

Image read_image_bytes(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    throw ImageError("not a gpu_stack registry image (bad magic); rebuild it with `gstackc compile`");
  // The magic is right, so a short file is a cut-off image rather than some other file.
  if (bytes.size() < kHeaderSize)
    throw ImageError("registry image is truncated (" + std::to_string(bytes.size()) + " bytes, shorter than its " +
                     std::to_string(kHeaderSize) + "-byte header)");
  Reader header(bytes.data() + 8, kHeaderSize - 8);
  uint32_t version = header.u32();
  if (version != kImageFormatVersion)
    throw ImageError("registry image has format version " + std::to_string(version) + " but this program reads version " +
                     std::to_string(kImageFormatVersion) + "; recompile the model with this gstackc");
  uint64_t length = header.u64();
  if (length != bytes.size() - kHeaderSize)
    throw ImageError("registry image is truncated or has extra bytes (header says " + std::to_string(length) +
                     " payload bytes, file has " + std::to_string(bytes.size() - kHeaderSize) + ")");
  const uint8_t* payload = bytes.data() + kHeaderSize;
  auto hash = sha256(payload, length);
  if (std::memcmp(hash.data(), bytes.data() + 20, 32) != 0)
    throw ImageError("registry image is corrupt (SHA-256 of the payload does not match the header)");
  Reader r(payload, length);
  return read_payload(r);
}

}  // namespace

std::vector<uint8_t> write_image(const Image& img) {
  Writer payload;
  write_payload(payload, img);
  Writer out;
  out.out.insert(out.out.end(), kMagic, kMagic + 8);
  out.u32(kImageFormatVersion);
  out.u64(payload.out.size());
  auto hash = sha256(payload.out.data(), payload.out.size());
  out.out.insert(out.out.end(), hash.begin(), hash.end());
  out.out.insert(out.out.end(), payload.out.begin(), payload.out.end());
  return out.out;
}

Image read_image(const std::vector<uint8_t>& bytes) { return read_image_bytes(bytes); }

namespace {

// A regular file mapped read-only for as long as this lives. An image replaced while it is mapped is
// harmless (gstackc renames a new file into place; the mapping keeps the old one), but one truncated in
// place by another process would end this one with SIGBUS, as it would any program mapping it.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the type check below refuses it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) throw ImageError("cannot open registry image '" + path + "'");
    struct stat st {};
    const bool ok = ::fstat(fd, &st) == 0, regular = ok && S_ISREG(st.st_mode);
    if (regular && st.st_size > 0) {
      size_ = size_t(st.st_size);
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      data_ = p == MAP_FAILED ? nullptr : static_cast<const uint8_t*>(p);
    }
    const int error = errno;
    ::close(fd);
    if (!regular)
      throw ImageError("cannot read registry image '" + path + "': " +
                       (ok ? "it is not a regular file (a directory, device, FIFO or socket)" : std::strerror(error)));
    if (size_ > 0 && !data_) throw ImageError("cannot read registry image '" + path + "': " + std::strerror(error));
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

Image load_image_file(const std::string& path) {
  const MappedFile file(path);
  try {
    return read_image_bytes({file.data(), file.size()});
  } catch (const ImageError& e) {
    throw ImageError(path + ": " + e.what());
  }
}

std::vector<std::string> stale_sources(const Image& img, const std::string& image_path) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  const auto image_time = fs::last_write_time(image_path, ec);
  if (ec) return out;
  for (size_t i = 0; i < img.files.size() && i < img.file_hashes.size(); ++i) {
    const std::string& src = img.files[i];
    // Only a source newer than the image is hashed, so loading stays cheap when nothing changed.
    const auto src_time = fs::last_write_time(src, ec);
    if (ec || src_time <= image_time || !fs::is_regular_file(src, ec)) continue;
    std::ifstream in(src, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) continue;
    if (sha256_hex(text.data(), text.size()) != img.file_hashes[i]) out.push_back(src);
  }
  return out;
}

bool starts_like_image(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  return in.read(head, sizeof head) && std::memcmp(head, kMagic, sizeof head) == 0;
}

void save_image_file(const Image& img, const std::string& path) {
  try {
    write_file_atomic(path, write_image(img));
  } catch (const std::runtime_error& e) {
    throw ImageError(e.what());
  }
}

}  // namespace gs
