// The registry image: the one contract between gstackc (which writes it) and the runtime (which loads
// it). Layout on disk:
//
//   magic "GSIMG\0\r\n" (8 bytes) | format version u32 | payload length u64 | SHA-256 of payload (32) |
//   payload
//
// The payload is a little-endian stream of the tables below, each prefixed by its element count.
// Everything is indexed by dense integer ids; dependency and dependent adjacency is precomputed as CSR.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "image/expr.h"
#include "image/units.h"

namespace gs {

// 2: the `exports` table (names the tools read by role) follows the adjacency tables.
// 3: each variable carries its symbol (`symbol "η_gemm"`), after its name.
// 4: each relation carries its declared fallback (`approx a when ... fallback b`), after its validity.
constexpr uint32_t kImageFormatVersion = 4;

struct Span {
  uint32_t file = 0;  // index into Image::files
  uint32_t line = 0;  // 1-based
  uint32_t column = 0;  // 1-based
  bool operator==(const Span&) const = default;
};

struct Reference {
  std::string name;
  std::string citation;
  std::string kind;  // paper, datasheet, standard, textbook, blog, dataset, model, memo
  std::string url;
  std::string locator;  // table, page or section inside the source
  int32_t year = 0;
  Span span;
  bool operator==(const Reference&) const = default;
};

enum class Sign : uint8_t { Any, Positive, Nonnegative, Negative, Nonpositive };

struct Assumptions {
  Sign sign = Sign::Any;
  bool integer = false;
  bool binary = false;
  bool has_range = false;
  double lo = 0, hi = 0;
  bool operator==(const Assumptions&) const = default;
};

struct Variable {
  std::string name;         // dotted, globally unique
  std::string symbol;       // short math name (`symbol "η_gemm"`), unique, or ""
  std::string description;  // one line, from the declaration
  std::string doc;          // doc comment lines, if any
  std::string unit;         // display unit as written, e.g. "USD/(kW*h)"
  double unit_scale = 1;    // one display unit in base units
  Dim dim;
  uint32_t system = 0;
  std::vector<uint32_t> refs;
  Assumptions assume;
  bool is_constant = false;
  double value = 0;  // constants only, in base units
  Span span;
  bool operator==(const Variable&) const = default;
};

enum class Role : uint8_t { Identity, Variant, Approximation, Constraint, Differential, Stochastic };
enum class Kind : uint8_t { Algebraic, Piecewise, Iterative, Inequality, Differential, Stochastic };

const char* role_name(Role r);
const char* kind_name(Kind k);

struct Relation {
  std::string name;  // "<system>.<local name>", globally unique
  std::string description;
  uint32_t system = 0;
  Role role = Role::Identity;
  Kind kind = Kind::Algebraic;
  std::string variant_key;
  int32_t lhs_var = -1;  // the variable a value relation defines; -1 for constraints
  Expr lhs;              // constraints: left side; value relations: empty
  Expr rhs;              // value, right side of a constraint, distribution mean, derivative
  Expr validity;         // approximations only
  // Approximations: the relation (another approximation of lhs_var) used where this one's validity is
  // definitely false or its value cannot be evaluated; -1 for none.
  int32_t fallback = -1;
  Op compare = Op::Eq;   // constraints: Lt, Le, Gt, Ge
  // Iterative relations: rhs is the map over local slot 0, unfolded `iterations` times from `initial`.
  Expr initial;
  Expr iterations;
  // Stochastic relations: a named distribution and its parameters (rhs is the mean where it is known).
  std::string distribution;
  std::vector<Expr> parameters;
  // Differential relations: d^order lhs_var / d indep^order = rhs.
  int32_t indep_var = -1;
  uint32_t order = 0;
  std::vector<uint32_t> refs;
  Span span;
  bool operator==(const Relation&) const = default;
};

struct System {
  std::string name;
  std::string description;
  std::vector<uint32_t> uses;  // system ids, all earlier in load order
  uint32_t file = 0;
  bool operator==(const System&) const = default;
};

// The roles an `export` may take: the compiler accepts only these, and the tools look names up by them.
inline constexpr const char* kExportHeadline = "headline";    // headline targets (stats, next-work, model-coverage)
inline constexpr const char* kExportQuestion = "question";    // the site's Ask menu, in order
inline constexpr const char* kExportBreakdown = "breakdown";  // the total the site splits by relation
inline constexpr const char* kExportInput = "input";          // calculator inputs the site lists first, in order

// One `export` declaration: a variable the tools read by role rather than by a name written into C++
// (role "headline": the headline targets; "question": the site's questions; ...; see docs/language.md).
struct Export {
  std::string role;
  std::string label;        // short key within the role (cost_per_token); may be empty
  std::string description;  // text for people (a menu entry, a column heading)
  uint32_t var = 0;
  Span span;
  bool operator==(const Export&) const = default;
};

// Compressed sparse rows: the items of row i are items[offsets[i] .. offsets[i+1]).
struct Csr {
  std::vector<uint32_t> offsets{0};
  std::vector<uint32_t> items;
  size_t rows() const { return offsets.size() - 1; }
  const uint32_t* begin(size_t row) const { return items.data() + offsets[row]; }
  const uint32_t* end(size_t row) const { return items.data() + offsets[row + 1]; }
  size_t size(size_t row) const { return offsets[row + 1] - offsets[row]; }
  bool operator==(const Csr&) const = default;
};

struct Image {
  std::vector<std::string> files;         // model source paths as given to the compiler
  std::vector<std::string> file_hashes;   // SHA-256 (hex) of each source file, for staleness checks
  UnitTable units;
  std::vector<System> systems;
  std::vector<Reference> refs;
  std::vector<Variable> vars;
  std::vector<Relation> relations;
  Csr relation_deps;  // relation -> variables it reads (graph edges; all fields, sorted)
  Csr defined_by;     // variable -> relations that define it (value relations, and constraints it is in)
  Csr used_in;        // variable -> relations that read it
  std::vector<Export> exports;  // in declaration order
  bool operator==(const Image& o) const;
};

// Fills relation_deps, defined_by and used_in from the relations.
void build_adjacency(Image& img);

// Serialises to bytes (deterministic) and back. read_image throws ImageError with a clear message on a
// truncated, corrupt or version-mismatched image.
std::vector<uint8_t> write_image(const Image& img);
Image read_image(const std::vector<uint8_t>& bytes);
Image load_image_file(const std::string& path);
void save_image_file(const Image& img, const std::string& path);  // atomic: temp file then rename
// The model sources an image at `image_path` was compiled from that have changed since: each listed
// source file that still exists, is newer than the image, and no longer has the recorded SHA-256.
// Sources that are gone, or relative paths that do not resolve from here, are not reported.
std::vector<std::string> stale_sources(const Image& img, const std::string& image_path);

// Whether the file at `path` starts with the image magic: writers refuse to replace anything else.
bool starts_like_image(const std::string& path);

struct ImageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string sha256_hex(const void* data, size_t size);
std::array<uint8_t, 32> sha256(const void* data, size_t size);

}  // namespace gs
